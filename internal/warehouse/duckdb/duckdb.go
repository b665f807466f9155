// Package duckdb is the DuckDB warehouse adapter (duckdb-go via database/sql).
package duckdb

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	duckdbdrv "github.com/duckdb/duckdb-go/v2"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/sqlguard"
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
	// settings is the fingerprint of every setting a fresh connection has
	// (see settingsFingerprint); a pooled connection whose settings differ
	// after a query is discarded rather than handed to the next caller.
	settings string
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

	// Settings are global to the database: the first connection applies
	// them, then locks the configuration, so no SQL can change them later
	// (memory_limit, threads, enable_external_access, ...). USE stays
	// possible: it is per connection and not a configuration option.
	setup := setupStatements(opts, attach, catalog)
	var done atomic.Bool
	connInit := func(ex driver.ExecerContext) error {
		if done.CompareAndSwap(false, true) {
			// DuckDB shares one database instance per file within a process:
			// a second Open of the same file (an in-process CLI call next to
			// a server, set_backend back to the same project) finds the
			// settings applied and locked. Accept them when they are the
			// ones this Open asks for.
			if !attach {
				if locked, err := alreadyLocked(ex, opts); locked || err != nil {
					if err != nil {
						done.Store(false)
					}
					return err
				}
			}
			for _, stmt := range setup {
				if _, err := ex.ExecContext(context.Background(), stmt, nil); err != nil {
					// Another Open of the same file in this process locked the
					// configuration between our check and this statement.
					if !attach && strings.Contains(err.Error(), "configuration has been locked") {
						if locked, lerr := alreadyLocked(ex, opts); locked {
							if lerr != nil {
								done.Store(false)
							}
							return lerr
						}
					}
					done.Store(false)
					if strings.HasPrefix(stmt, "ATTACH") {
						return fmt.Errorf("attaching %s as %s: %w", opts.Path, catalog, err)
					}
					return fmt.Errorf("%s: %w", stmt, err)
				}
			}
		}
		if !attach {
			return nil
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
	if opts.ReadOnly {
		sc, err := db.Conn(ctx)
		if err == nil {
			err = sc.Raw(func(dc any) error {
				c.settings, err = settingsFingerprint(ctx, dc)
				return err
			})
			sc.Close()
		}
		if err != nil {
			db.Close()
			return nil, openError(opts, err)
		}
	}
	return c, nil
}

// settingsQuery digests every setting of the session. Some DuckDB table
// functions change a connection's settings past lock_configuration
// (enable_profiling, enable_peg_parser); the guard refuses those it knows,
// and this catches any it does not.
const settingsQuery = `SELECT md5(string_agg(name || '=' || lower(coalesce(value, '')), ';' ORDER BY name)) FROM duckdb_settings()`

// resetStatements undo what the known session-changing functions do. Some
// of those settings are the database's, not the connection's
// (allow_parser_override_extension), so discarding the connection alone
// does not undo them, and lock_configuration refuses RESET.
var resetStatements = []string{
	"SELECT * FROM disable_profiling()",
	"SELECT * FROM disable_peg_parser()",
}

// resetSession runs resetStatements on dc, ignoring their errors: the
// connection is discarded after it anyway.
func resetSession(dc any) {
	q, ok := dc.(driver.QueryerContext)
	if !ok {
		return
	}
	for _, stmt := range resetStatements {
		if rows, err := q.QueryContext(context.Background(), stmt, nil); err == nil {
			rows.Close()
		}
	}
}

// settingsFingerprint returns the digest of dc's settings.
func settingsFingerprint(ctx context.Context, dc any) (string, error) {
	q, ok := dc.(driver.QueryerContext)
	if !ok {
		return "", errors.New("duckdb: the driver connection cannot query")
	}
	rows, err := q.QueryContext(ctx, settingsQuery, nil)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	vals := make([]driver.Value, 1)
	if err := rows.Next(vals); err != nil {
		return "", err
	}
	s, _ := vals[0].(string)
	return s, nil
}

// alreadyLocked reports whether the database's configuration was already
// applied and locked by another Open in this process, and fails when those
// settings are weaker than the ones opts asks for.
func alreadyLocked(ex driver.ExecerContext, opts Options) (bool, error) {
	q, ok := ex.(driver.QueryerContext)
	if !ok {
		return false, nil
	}
	rows, err := q.QueryContext(context.Background(),
		"SELECT current_setting('lock_configuration')::BOOLEAN, current_setting('enable_external_access')::BOOLEAN, current_setting('autoinstall_known_extensions')::BOOLEAN", nil)
	if err != nil {
		return false, nil
	}
	defer rows.Close()
	vals := make([]driver.Value, 3)
	if err := rows.Next(vals); err != nil {
		return false, nil
	}
	locked, _ := vals[0].(bool)
	external, _ := vals[1].(bool)
	autoinstall, _ := vals[2].(bool)
	if !locked {
		return false, nil
	}
	if (external && !opts.AllowExternalAccess) || (autoinstall && opts.ReadOnly) {
		return true, fmt.Errorf("duckdb: %s is already open in this process with external access or extension installs allowed; open it with the same settings", opts.Path)
	}
	return true, nil
}

// setupStatements are run once, on the first connection.
func setupStatements(opts Options, attach bool, catalog string) []string {
	var stmts []string
	if attach {
		mode := ""
		if opts.ReadOnly {
			mode = " (READ_ONLY)"
		}
		stmts = append(stmts, "ATTACH "+quoteLiteral(opts.Path)+" AS "+quoteIdent(catalog)+mode)
		// With ATTACH, external access stayed on until the file was attached.
		if !opts.AllowExternalAccess {
			stmts = append(stmts, "SET enable_external_access = false")
		}
	}
	if opts.ReadOnly {
		// External access, when allowed, means reading files: never
		// installing extensions (a write under ~/.duckdb).
		stmts = append(stmts,
			"SET autoinstall_known_extensions = false",
			"SET allow_community_extensions = false",
			"SET lock_configuration = true")
	}
	return stmts
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

// Query implements warehouse.Conn. On a read-only Conn the statement is
// classified (internal/sqlguard) and then prepared alone, and it runs only
// when DuckDB itself says it is one SELECT (or EXPLAIN): duckdb-go's
// QueryContext would run every statement of a multi-statement string, and
// DuckDB's parser is the last word on what the string holds. The classifier
// comes first because binding is not free of effects: preparing EXPORT
// DATABASE creates its directory.
func (c *Conn) Query(ctx context.Context, query string, opts warehouse.QueryOptions) (*warehouse.Result, error) {
	if !c.readOnly {
		rows, err := c.db.QueryContext(ctx, query)
		if err != nil {
			return nil, wrapErr(ctx, err, query)
		}
		defer rows.Close()
		return collect(ctx, query, opts, sqlRows{rows})
	}
	if _, err := sqlguard.Check(ctx, "duckdb", query); err != nil {
		return nil, warehouse.Refusal(err, query)
	}
	sc, err := c.db.Conn(ctx)
	if err != nil {
		return nil, wrapErr(ctx, err, query)
	}
	defer sc.Close()
	var res *warehouse.Result
	changed := false
	defer func() {
		if changed {
			// Returning driver.ErrBadConn from Raw makes database/sql close
			// the connection instead of returning it to the pool.
			_ = sc.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	err = sc.Raw(func(dc any) error {
		// Whatever the query did to the session, the next caller must get
		// a connection with the settings Open gave it.
		defer func() {
			fp, ferr := settingsFingerprint(context.WithoutCancel(ctx), dc)
			changed = ferr != nil || fp != c.settings
			if changed {
				resetSession(dc)
			}
		}()
		st, err := dc.(*duckdbdrv.Conn).Prepare(query)
		if err != nil {
			if strings.Contains(err.Error(), "multi-statement") {
				return &warehouse.Error{Class: warehouse.ClassPermissionDenied, SQL: query,
					Message: "duckdb: the SQL holds more than one statement; this read-only connection runs exactly one SELECT per query"}
			}
			return wrapErr(ctx, err, query)
		}
		defer st.Close()
		typ, err := st.(*duckdbdrv.Stmt).StatementType()
		if err != nil {
			return wrapErr(ctx, err, query)
		}
		if typ != duckdbdrv.STATEMENT_TYPE_SELECT && typ != duckdbdrv.STATEMENT_TYPE_EXPLAIN {
			return &warehouse.Error{Class: warehouse.ClassPermissionDenied, SQL: query,
				Message: fmt.Sprintf("duckdb: the connection is read-only: refusing a %s statement (only SELECT and EXPLAIN run)", stmtTypeName(typ))}
		}
		if typ == duckdbdrv.STATEMENT_TYPE_SELECT {
			if capped, ok := boundRows(dc.(*duckdbdrv.Conn), query, opts, st.(*duckdbdrv.Stmt)); ok {
				defer capped.Close()
				st = capped
			}
		}
		dr, err := st.(driver.StmtQueryContext).QueryContext(ctx, nil)
		if err != nil {
			return wrapErr(ctx, err, query)
		}
		defer dr.Close()
		res, err = collect(ctx, query, opts, &driverRows{rows: dr})
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// boundRows prepares query under a LIMIT of the most rows the caps can let
// through. duckdb-go has no streaming result: a statement's whole result is
// built in DuckDB's memory before the first row reaches Go (a 200 MB SELECT
// built 200 MB, and more, to return 2,000 rows). With the bound in the
// statement, DuckDB stops producing rows there (ORDER BY becomes a top-N),
// so what it builds is bounded by the caps, not by the query. The bound is
// one row past the row limit (so More stays exact), and at most the rows
// the byte cap can hold (each row costs at least 2 bytes plus 2 per
// column in Collect's accounting). ok is false when no bound applies or
// the wrapped statement does not prepare (then the query runs as written).
func boundRows(dc *duckdbdrv.Conn, query string, opts warehouse.QueryOptions, st *duckdbdrv.Stmt) (driver.Stmt, bool) {
	n := int64(-1)
	if limit := warehouse.EffectiveLimit(opts); limit >= 0 {
		n = int64(limit) + 1
	}
	if maxBytes := warehouse.EffectiveMaxBytes(opts); maxBytes >= 0 {
		cols, err := st.ColumnCount()
		if err != nil || cols < 1 {
			cols = 1
		}
		if b := maxBytes/int64(2+2*cols) + 1; n < 0 || b < n {
			n = b
		}
	}
	if n < 0 {
		return nil, false
	}
	// The newline ends a trailing -- comment before the closing parenthesis.
	capped, err := dc.Prepare(fmt.Sprintf("SELECT * FROM (\n%s\n) AS ripple_bounded LIMIT %d", query, n))
	if err != nil {
		return nil, false
	}
	return capped, true
}

// rowSource is what collect reads: database/sql rows, or the driver's own
// rows of a statement prepared on a raw connection.
type rowSource interface {
	columns() ([]warehouse.Column, error)
	next(dst []any) (bool, error)
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) columns() ([]warehouse.Column, error) {
	types, err := r.ColumnTypes()
	if err != nil {
		return nil, err
	}
	cols := make([]warehouse.Column, len(types))
	for i, ct := range types {
		cols[i] = warehouse.Column{Name: ct.Name(), Type: ct.DatabaseTypeName()}
	}
	return cols, nil
}

func (r sqlRows) next(dst []any) (bool, error) {
	if !r.Next() {
		return false, r.Err()
	}
	ptrs := make([]any, len(dst))
	for i := range dst {
		ptrs[i] = &dst[i]
	}
	return true, r.Scan(ptrs...)
}

type driverRows struct {
	rows driver.Rows
	buf  []driver.Value
}

func (r *driverRows) columns() ([]warehouse.Column, error) {
	names := r.rows.Columns()
	cols := make([]warehouse.Column, len(names))
	typed, _ := r.rows.(driver.RowsColumnTypeDatabaseTypeName)
	for i, n := range names {
		cols[i] = warehouse.Column{Name: n}
		if typed != nil {
			cols[i].Type = typed.ColumnTypeDatabaseTypeName(i)
		}
	}
	return cols, nil
}

func (r *driverRows) next(dst []any) (bool, error) {
	if len(r.buf) != len(dst) {
		r.buf = make([]driver.Value, len(dst))
	}
	if err := r.rows.Next(r.buf); err != nil {
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, err
	}
	for i, v := range r.buf {
		if b, ok := v.([]byte); ok {
			v = bytes.Clone(b) // the driver may reuse its buffers
		}
		dst[i] = v
	}
	return true, nil
}

func collect(ctx context.Context, query string, opts warehouse.QueryOptions, rows rowSource) (*warehouse.Result, error) {
	cols, err := rows.columns()
	if err != nil {
		return nil, wrapErr(ctx, err, query)
	}
	kinds := make([]warehouse.Kind, len(cols))
	for i := range cols {
		kinds[i] = warehouse.KindOf(cols[i].Type)
	}
	res, err := warehouse.Collect(cols, opts, func() ([]any, bool, error) {
		vals := make([]any, len(cols))
		ok, err := rows.next(vals)
		if !ok || err != nil {
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

// stmtTypeName names a DuckDB statement type for an error message.
func stmtTypeName(t duckdbdrv.StmtType) string {
	names := map[duckdbdrv.StmtType]string{
		duckdbdrv.STATEMENT_TYPE_INSERT: "INSERT", duckdbdrv.STATEMENT_TYPE_UPDATE: "UPDATE",
		duckdbdrv.STATEMENT_TYPE_DELETE: "DELETE", duckdbdrv.STATEMENT_TYPE_CREATE: "CREATE",
		duckdbdrv.STATEMENT_TYPE_ALTER: "ALTER", duckdbdrv.STATEMENT_TYPE_DROP: "DROP",
		duckdbdrv.STATEMENT_TYPE_COPY: "COPY", duckdbdrv.STATEMENT_TYPE_ATTACH: "ATTACH",
		duckdbdrv.STATEMENT_TYPE_DETACH: "DETACH", duckdbdrv.STATEMENT_TYPE_SET: "SET",
		duckdbdrv.STATEMENT_TYPE_VARIABLE_SET: "SET/USE", duckdbdrv.STATEMENT_TYPE_LOAD: "INSTALL/LOAD",
		duckdbdrv.STATEMENT_TYPE_EXTENSION: "extension", duckdbdrv.STATEMENT_TYPE_PRAGMA: "PRAGMA",
		duckdbdrv.STATEMENT_TYPE_CALL: "CALL", duckdbdrv.STATEMENT_TYPE_EXPORT: "EXPORT",
		duckdbdrv.STATEMENT_TYPE_TRANSACTION: "transaction", duckdbdrv.STATEMENT_TYPE_VACUUM: "VACUUM",
		duckdbdrv.STATEMENT_TYPE_PREPARE: "PREPARE", duckdbdrv.STATEMENT_TYPE_EXECUTE: "EXECUTE",
	}
	if n, ok := names[t]; ok {
		return n
	}
	return fmt.Sprintf("non-SELECT (type %d)", t)
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
