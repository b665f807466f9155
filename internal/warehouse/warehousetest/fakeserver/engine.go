// Package fakeserver holds in-repo protocol fakes of the warehouses that
// cannot run here (Snowflake, BigQuery, Databricks, Trino): httptest
// servers speaking each service's wire protocol, answering from a DuckDB
// database, so the adapters' real drivers are exercised end to end. It is
// a test fixture: only _test.go files import it (a test in
// internal/warehouse/open checks the binary never links it).
package fakeserver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	duckdbdrv "github.com/duckdb/duckdb-go/v2"
)

// Engine runs the statements a fake receives on a DuckDB file opened
// read-only (as a read-only role would see its warehouse), tracks running
// queries by id so a cancel request can kill them, and counts the kills.
type Engine struct {
	path string
	// Catalog is the database's name (the fake's project, catalog or database).
	Catalog string
	db      *sql.DB

	mu      sync.Mutex
	running map[string]context.CancelFunc
	killed  atomic.Int64
}

// NewEngine creates an empty database whose catalog is named catalog (the
// fake's project, catalog or database); Setup writes to it, then the fake
// serves it read-only.
func NewEngine(t testing.TB, catalog string) *Engine {
	e := &Engine{path: filepath.Join(t.TempDir(), catalog+".duckdb"), Catalog: catalog, running: map[string]context.CancelFunc{}}
	if err := e.Setup(context.Background()); err != nil {
		t.Fatalf("fake engine: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// qualifiedInfoSchema matches a catalog (and dataset) prefix in front of
// information_schema, which DuckDB only knows unqualified.
var qualifiedInfoSchema = regexp.MustCompile(`(?i)(?:(?:"[^"]*"|\w+)\.){1,2}(information_schema\.)`)

// Setup runs statements with write access (before Serve).
func (e *Engine) Setup(ctx context.Context, stmts ...string) error {
	db, err := sql.Open("duckdb", e.path)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// open reopens the database read-only, once.
func (e *Engine) open() (*sql.DB, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.db != nil {
		return e.db, nil
	}
	db, err := sql.Open("duckdb", e.path+"?access_mode=READ_ONLY")
	if err != nil {
		return nil, err
	}
	e.db = db
	return db, nil
}

// Close stops every running query and releases the database.
func (e *Engine) Close() error {
	e.mu.Lock()
	db := e.db
	for _, cancel := range e.running {
		cancel()
	}
	e.mu.Unlock()
	// Not under mu: a stopping query takes it to unregister itself.
	if db == nil {
		return nil
	}
	return db.Close()
}

// Column is a result column with DuckDB's type name.
type Column struct{ Name, Type string }

// Result is a whole result set.
type Result struct {
	Columns []Column
	Rows    [][]any
}

// Query runs one statement under id (for Kill), in full.
func (e *Engine) Query(ctx context.Context, id, query string) (*Result, error) {
	return e.QueryIn(ctx, id, "", query)
}

// QueryIn is Query with unqualified names resolved in schema (BigQuery's
// default dataset) when it is not empty.
func (e *Engine) QueryIn(ctx context.Context, id, schema, query string) (*Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e.mu.Lock()
	e.running[id] = cancel
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.running, id)
		e.mu.Unlock()
	}()
	conn, release, err := e.Conn(ctx, schema)
	if err != nil {
		return nil, err
	}
	defer release()
	rows, err := conn.QueryContext(ctx, qualifiedInfoSchema.ReplaceAllString(query, "$1"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	res := &Result{Columns: make([]Column, len(types))}
	for i, ct := range types {
		res.Columns[i] = Column{Name: ct.Name(), Type: ct.DatabaseTypeName()}
	}
	for rows.Next() {
		vals := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, vals)
	}
	return res, rows.Err()
}

// Conn is one connection to the read-only database whose unqualified
// names resolve in schema (the default when empty); release returns it,
// or discards it when it was switched to another schema, so the pool
// never hands out a connection with someone else's default.
func (e *Engine) Conn(ctx context.Context, schema string) (conn *sql.Conn, release func(), err error) {
	db, err := e.open()
	if err != nil {
		return nil, nil, err
	}
	if conn, err = db.Conn(ctx); err != nil {
		return nil, nil, err
	}
	if schema == "" {
		return conn, func() { conn.Close() }, nil
	}
	release = func() {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		conn.Close()
	}
	if _, err := conn.ExecContext(ctx, "USE "+quoteIdent(e.Catalog)+"."+quoteIdent(schema)); err != nil {
		release()
		return nil, nil, err
	}
	return conn, release, nil
}

// queryRow scans one row of a statement run on the read-only database.
func (e *Engine) queryRow(ctx context.Context, query string, args []any, dest ...any) error {
	db, err := e.open()
	if err != nil {
		return err
	}
	return db.QueryRowContext(ctx, query, args...).Scan(dest...)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Kill cancels a running query, as the service's cancel endpoint does; it
// reports whether a query with that id was running.
func (e *Engine) Kill(id string) bool {
	e.mu.Lock()
	cancel, ok := e.running[id]
	e.mu.Unlock()
	if ok {
		cancel()
		e.killed.Add(1)
	}
	return ok
}

// Killed counts queries stopped by a cancel request.
func (e *Engine) Killed() int { return int(e.killed.Load()) }

// RequestCounter counts the HTTP requests a fake receives, so a test can
// prove a statement never reached the server.
type RequestCounter struct{ n atomic.Int64 }

// count wraps a fake's handler.
func (c *RequestCounter) count(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.n.Add(1)
		h.ServeHTTP(w, r)
	})
}

// Requests is the number of HTTP requests received so far.
func (c *RequestCounter) Requests() int { return int(c.n.Load()) }

// Kind is the vendor-neutral cause of a DuckDB error, which each fake maps
// to its service's own error code.
type Kind int

// The causes.
const (
	Other Kind = iota
	NotFound
	Syntax
	ReadOnly
	Canceled
)

// KindOf reads the cause of an engine error.
func KindOf(err error) Kind {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Canceled
	}
	var de *duckdbdrv.Error
	if !errors.As(err, &de) {
		return Other
	}
	msg := strings.ToLower(de.Msg)
	switch {
	case strings.Contains(msg, "read-only"):
		return ReadOnly
	case de.Type == duckdbdrv.ErrorTypeInterrupt:
		return Canceled
	case de.Type == duckdbdrv.ErrorTypeCatalog && (strings.Contains(msg, "table with name") || strings.Contains(msg, "schema with name")):
		return NotFound
	case de.Type == duckdbdrv.ErrorTypeParser, de.Type == duckdbdrv.ErrorTypeBinder, de.Type == duckdbdrv.ErrorTypeCatalog:
		return Syntax
	}
	return Other
}
