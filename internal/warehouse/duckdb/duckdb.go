// Package duckdb is the DuckDB warehouse adapter (duckdb-go via database/sql).
package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	duckdbdrv "github.com/duckdb/duckdb-go/v2"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// Options configure Open.
type Options struct {
	// Path is the database file; "" or ":memory:" opens an in-memory database.
	Path string
	// ReadOnly opens the file with access_mode=READ_ONLY (or attaches it
	// READ_ONLY). Every operation that does not need writes must set it:
	// it also lets Ripple read a file while dbt holds it open for reading.
	ReadOnly bool
	// AllowExternalAccess keeps DuckDB's enable_external_access on. Off by
	// default so SQL Ripple runs cannot read arbitrary local files or URLs
	// (read_csv('/etc/...'), httpfs) on the user's machine.
	AllowExternalAccess bool
	// Catalog is the name the file is reachable under in SQL. dbt-duckdb
	// writes views with 3-part names (jaffle_shop.main.x) using the catalog
	// the file had when dbt ran, which is the file's stem unless the profile
	// attached it under an alias; when Catalog differs from the stem the file
	// is ATTACHed under Catalog so those views still resolve.
	Catalog string
}

// Conn is a DuckDB connection pool implementing warehouse.Conn.
type Conn struct {
	db       *sql.DB
	readOnly bool
	catalog  string
}

var _ warehouse.Conn = (*Conn)(nil)

// OpenWritable opens path (or in-memory when "") for writing. Only the
// demo/fixture builder should use it; Ripple operations open read-only.
func OpenWritable(ctx context.Context, path, catalog string) (*Conn, error) {
	return Open(ctx, Options{Path: path, Catalog: catalog, AllowExternalAccess: true})
}

// Open opens a DuckDB database as described by opts.
func Open(ctx context.Context, opts Options) (*Conn, error) {
	inMemory := opts.Path == "" || opts.Path == ":memory:"
	if inMemory && opts.ReadOnly {
		return nil, errors.New("duckdb: an in-memory database cannot be opened read-only; set path in the duckdb profile to the .duckdb file dbt built")
	}
	stem := ""
	if !inMemory {
		base := filepath.Base(opts.Path)
		stem = strings.TrimSuffix(base, filepath.Ext(base))
	}
	catalog := opts.Catalog
	attach := !inMemory && catalog != "" && catalog != stem
	if catalog == "" {
		catalog = stem
		if inMemory {
			catalog = "memory"
		}
	}

	params := url.Values{}
	dsn := opts.Path
	if inMemory || attach {
		dsn = ""
	} else if opts.ReadOnly {
		params.Set("access_mode", "READ_ONLY")
	}
	// With ATTACH, external access must stay on until the file is attached:
	// it is switched off in connInit right after.
	if !opts.AllowExternalAccess && !attach {
		params.Set("enable_external_access", "false")
	}
	if len(params) > 0 {
		dsn += "?" + params.Encode()
	}

	var attached atomic.Bool
	connInit := func(ex driver.ExecerContext) error {
		if !attach {
			return nil
		}
		if attached.CompareAndSwap(false, true) {
			mode := ""
			if opts.ReadOnly {
				mode = " (READ_ONLY)"
			}
			stmt := "ATTACH " + quoteLiteral(opts.Path) + " AS " + quoteIdent(catalog) + mode
			if _, err := ex.ExecContext(context.Background(), stmt, nil); err != nil {
				attached.Store(false)
				return fmt.Errorf("attaching %s as %s: %w", opts.Path, catalog, err)
			}
			if !opts.AllowExternalAccess {
				if _, err := ex.ExecContext(context.Background(), "SET enable_external_access = false", nil); err != nil {
					return err
				}
			}
		}
		_, err := ex.ExecContext(context.Background(), "USE "+quoteIdent(catalog), nil)
		return err
	}
	connector, err := duckdbdrv.NewConnector(dsn, connInit)
	if err != nil {
		return nil, openError(opts, err)
	}
	db := sql.OpenDB(connector)
	c := &Conn{db: db, readOnly: opts.ReadOnly, catalog: catalog}
	// Open lazily connects; ping now so a bad path fails here, naming it.
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, openError(opts, err)
	}
	return c, nil
}

func openError(opts Options, err error) error {
	path := opts.Path
	if path == "" {
		path = ":memory:"
	}
	hint := "check the path in the duckdb profile"
	if strings.Contains(strings.ToLower(err.Error()), "lock") {
		hint = "another process (often a running dbt or DuckDB CLI) holds a write lock on the file; close it and retry"
	}
	return &warehouse.Error{
		Class:   warehouse.Classify(err),
		Message: fmt.Sprintf("duckdb: opening %s: %v; %s", path, err, hint),
		Err:     err,
	}
}

// The ATTACH statements quote through DuckDB's record (internal/dialect),
// the way every generated query does.
func quoteIdent(s string) string   { return dialect.Must("duckdb").QuoteIdent(s) }
func quoteLiteral(s string) string { return dialect.Must("duckdb").StringLiteral(s) }

// Dialect implements warehouse.Conn.
func (c *Conn) Dialect() string { return "duckdb" }

// Catalog is the catalog name the database file is reachable under.
func (c *Conn) Catalog() string { return c.catalog }

// Close implements warehouse.Conn.
func (c *Conn) Close() error { return c.db.Close() }

// DB exposes the pool for the fixture builder, which loads data in bulk.
func (c *Conn) DB() *sql.DB { return c.db }

// Exec runs a statement that returns no rows. It fails on a read-only Conn.
func (c *Conn) Exec(ctx context.Context, query string, args ...any) error {
	if c.readOnly {
		return &warehouse.Error{Class: warehouse.ClassPermissionDenied, Message: "duckdb: connection is read-only; writes need a writable connection (duckdb.OpenWritable)", SQL: query}
	}
	if _, err := c.db.ExecContext(ctx, query, args...); err != nil {
		return wrapErr(ctx, err, query)
	}
	return nil
}

func wrapErr(ctx context.Context, err error, query string) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return &warehouse.Error{Class: warehouse.ClassCanceled, Message: "duckdb: query interrupted: " + ctxErr.Error(), SQL: query, Err: errors.Join(ctxErr, err)}
	}
	return &warehouse.Error{Class: warehouse.Classify(err), Message: "duckdb: " + err.Error(), SQL: query, Err: err}
}

// Query implements warehouse.Conn.
func (c *Conn) Query(ctx context.Context, query string, opts warehouse.QueryOptions) (*warehouse.Result, error) {
	rows, err := c.db.QueryContext(ctx, query)
	if err != nil {
		return nil, wrapErr(ctx, err, query)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, wrapErr(ctx, err, query)
	}
	cols := make([]warehouse.Column, len(types))
	kinds := make([]warehouse.Kind, len(types))
	for i, ct := range types {
		cols[i] = warehouse.Column{Name: ct.Name(), Type: ct.DatabaseTypeName()}
		kinds[i] = warehouse.KindOf(cols[i].Type)
	}
	res, err := warehouse.Collect(cols, opts, func() ([]any, bool, error) {
		if !rows.Next() {
			return nil, false, rows.Err()
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, false, err
		}
		for i, v := range vals {
			vals[i] = warehouse.Normalize(fromDriver(v, cols[i].Type), kinds[i])
		}
		return vals, true, nil
	})
	if err != nil {
		return nil, wrapErr(ctx, err, query)
	}
	return res, nil
}

// fromDriver converts duckdb-go's own types into ones warehouse.Normalize
// knows, keeping the warehouse package free of the cgo driver.
func fromDriver(v any, typ string) any {
	switch x := v.(type) {
	case duckdbdrv.Decimal:
		return warehouse.Decimal{Unscaled: x.Value, Scale: int(x.Scale)}
	case duckdbdrv.Interval:
		return fmt.Sprintf("%d months %d days %d microseconds", x.Months, x.Days, x.Micros)
	case duckdbdrv.UUID:
		return [16]byte(x)
	case []byte:
		if typ == "UUID" && len(x) == 16 {
			return [16]byte(x)
		}
	case duckdbdrv.Map:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = fromDriver(e, "")
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromDriver(e, "")
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = fromDriver(e, "")
		}
		return out
	}
	return v
}

// Columns implements warehouse.Conn. Matching is case-insensitive because
// DuckDB resolves identifiers case-insensitively.
func (c *Conn) Columns(ctx context.Context, rel warehouse.Relation) ([]warehouse.Column, error) {
	const q = `SELECT column_name, data_type FROM information_schema.columns
WHERE lower(table_catalog) = lower(coalesce(NULLIF(?, ''), current_database()))
  AND lower(table_schema) = lower(coalesce(NULLIF(?, ''), current_schema()))
  AND lower(table_name) = lower(?)
ORDER BY ordinal_position`
	rows, err := c.db.QueryContext(ctx, q, rel.Database, rel.Schema, rel.Name)
	if err != nil {
		return nil, wrapErr(ctx, err, q)
	}
	defer rows.Close()
	var cols []warehouse.Column
	for rows.Next() {
		var col warehouse.Column
		if err := rows.Scan(&col.Name, &col.Type); err != nil {
			return nil, wrapErr(ctx, err, q)
		}
		cols = append(cols, col)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr(ctx, err, q)
	}
	if len(cols) == 0 {
		return nil, c.notFound(ctx, rel)
	}
	return cols, nil
}

// notFound builds a table_not_found error listing what does exist nearby,
// because the usual cause is a wrong database/schema in the profile.
func (c *Conn) notFound(ctx context.Context, rel warehouse.Relation) error {
	name := strings.Join(nonEmpty(rel.Database, rel.Schema, rel.Name), ".")
	msg := fmt.Sprintf("duckdb: relation %s does not exist in %s", name, c.catalog)
	rows, err := c.db.QueryContext(ctx, `SELECT DISTINCT table_catalog || '.' || table_schema FROM information_schema.tables`)
	if err == nil {
		defer rows.Close()
		var have []string
		for rows.Next() {
			var s string
			if rows.Scan(&s) == nil {
				have = append(have, s)
			}
		}
		sort.Strings(have)
		if len(have) > 0 {
			msg += " (schemas present: " + strings.Join(have, ", ") + ")"
		}
	}
	return &warehouse.Error{Class: warehouse.ClassTableNotFound, Message: msg}
}

func nonEmpty(parts ...string) []string {
	out := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
