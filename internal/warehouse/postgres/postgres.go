// Package postgres is the PostgreSQL warehouse adapter, built on pgx/v5.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/ripple-data/ripple/internal/warehouse"
)

// Options configure Open. Explicit fields override what DSN says.
type Options struct {
	// DSN is a libpq URL or key=value string; may be empty.
	DSN      string
	Host     string
	Port     int
	User     string
	Password string
	Database string
	// SearchPath sets the schema unqualified names resolve in (dbt's schema).
	SearchPath string
	// ReadOnly runs every statement in BEGIN READ ONLY with
	// default_transaction_read_only on, so the server itself refuses writes.
	ReadOnly bool
	// StatementTimeout, when > 0, is sent as statement_timeout so a runaway
	// query stops in the warehouse even if Ripple dies.
	StatementTimeout time.Duration
	// SSLMode is libpq's sslmode (disable, prefer, require, verify-full...);
	// empty means libpq's default, prefer.
	SSLMode string
	// MaxConns bounds concurrent connections (default 4).
	MaxConns int
	// ConnectTimeout bounds dialing (default 10s).
	ConnectTimeout time.Duration
	// Dialect is the warehouse record the connection speaks: "postgres"
	// (default) or a wire-compatible warehouse such as "redshift". It names
	// Dialect() and classifies SQLSTATE codes through that record.
	Dialect string
}

// Conn is a small pool of pgx connections implementing warehouse.Conn.
// (pgxpool is not used because it would add a module dependency.)
type Conn struct {
	cfg  *pgx.ConnConfig
	opts Options
	sem  chan struct{}
	// warnings are found once, at Open (see privilegeWarnings).
	warnings []string

	mu     sync.Mutex
	idle   []*pgx.Conn
	closed bool
}

var _ warehouse.Conn = (*Conn)(nil)

// Open connects once to validate the settings and returns the pool.
func Open(ctx context.Context, opts Options) (*Conn, error) {
	dsn := opts.DSN
	if dsn == "" {
		// Going through ParseConfig (rather than setting cfg.Host) keeps
		// pgx's sslmode handling: with the default "prefer" it builds a
		// plaintext fallback that a TLS-less server needs. The password is
		// set afterwards so it never appears in a string a parse error
		// could echo.
		dsn = kvConnString(opts)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		msg := parseErrorMessage(err, opts.Password)
		return nil, &warehouse.Error{Class: warehouse.ClassUnclassified, Message: "postgres: invalid connection settings: " + msg, Err: errors.New(msg)}
	}
	if opts.DSN != "" {
		if opts.Host != "" || opts.Port != 0 {
			return nil, errors.New("postgres: give either a DSN or host/port, not both")
		}
		if opts.User != "" {
			cfg.User = opts.User
		}
		if opts.Database != "" {
			cfg.Database = opts.Database
		}
	}
	if opts.Password != "" {
		cfg.Password = opts.Password
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	cfg.ConnectTimeout = opts.ConnectTimeout
	if opts.MaxConns <= 0 {
		opts.MaxConns = 4
	}
	if opts.Dialect == "" {
		opts.Dialect = "postgres"
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = "ripple"
	if opts.Dialect == "postgres" {
		// Ripple's statement classifier reads '...' without backslash
		// escapes; make the server read them the same way whatever its
		// default. (Redshift's record lexes its own escapes, and Redshift
		// refuses unknown startup parameters.)
		cfg.RuntimeParams["standard_conforming_strings"] = "on"
		// Redshift has no default_transaction_read_only either; BEGIN READ
		// ONLY still holds there.
		if opts.ReadOnly {
			cfg.RuntimeParams["default_transaction_read_only"] = "on"
		}
	}
	// PostgreSQL 14+ can notice a vanished client during a query and stop
	// it; without it a query of a killed Ripple runs on to its timeout.
	cfg.AfterConnect = func(ctx context.Context, pc *pgconn.PgConn) error {
		if serverMajor(pc) < 14 {
			return nil
		}
		_, err := pc.Exec(ctx, "SET client_connection_check_interval = '1s'").ReadAll()
		return err
	}
	if opts.StatementTimeout > 0 {
		cfg.RuntimeParams["statement_timeout"] = strconv.FormatInt(opts.StatementTimeout.Milliseconds(), 10)
	}
	if opts.SearchPath != "" {
		cfg.RuntimeParams["search_path"] = opts.SearchPath
	}
	// Ripple runs ad-hoc SQL once; caching prepared statements per
	// connection would only grow memory. Exec mode also rejects multiple
	// statements in one string, which keeps "...; COMMIT; DROP ..." out.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	// By default pgx only closes the socket on cancel, leaving the query
	// running on the server; send a real cancel request first.
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, CancelRequestDelay: 0, DeadlineDelay: time.Second}
	}
	c := &Conn{cfg: cfg, opts: opts, sem: make(chan struct{}, opts.MaxConns)}
	pc, err := c.acquire(ctx)
	if err != nil {
		return nil, err
	}
	c.release(pc, false)
	if c.warnings, err = c.privilegeWarnings(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// serverMajor is the server's major version (0 when unknown).
func serverMajor(pc *pgconn.PgConn) int {
	v := pc.ParameterStatus("server_version")
	n := 0
	for _, ch := range v {
		if ch < '0' || ch > '9' {
			break
		}
		n = n*10 + int(ch-'0')
	}
	return n
}

// parseErrorMessage is pgx's message for an unparsable connection string,
// whose password pgx masks on a best-effort basis; should the password
// still show, the details are withheld rather than edited.
func parseErrorMessage(err error, password string) string {
	msg := warehouse.Redact(err.Error())
	if password != "" && strings.Contains(msg, password) {
		return "the connection string cannot be parsed (details withheld: they contain the password); check the DSN or the profile's host, port, user and dbname"
	}
	return msg
}

// kvConnString renders the non-secret fields as a libpq key=value string.
func kvConnString(opts Options) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			v = strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `'`, `\'`)
			parts = append(parts, k+"='"+v+"'")
		}
	}
	add("host", opts.Host)
	if opts.Port != 0 {
		add("port", strconv.Itoa(opts.Port))
	}
	add("user", opts.User)
	add("dbname", opts.Database)
	add("sslmode", opts.SSLMode)
	return strings.Join(parts, " ")
}

func (c *Conn) acquire(ctx context.Context) (*pgx.Conn, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, c.wrapErr(ctx, ctx.Err(), "")
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.sem
		return nil, errors.New("postgres: connection is closed")
	}
	for len(c.idle) > 0 {
		pc := c.idle[len(c.idle)-1]
		c.idle = c.idle[:len(c.idle)-1]
		if !pc.IsClosed() {
			c.mu.Unlock()
			return pc, nil
		}
	}
	c.mu.Unlock()
	pc, err := pgx.ConnectConfig(ctx, c.cfg)
	if err != nil {
		<-c.sem
		host := c.cfg.Host
		detail := warehouse.Redact(err.Error())
		msg := fmt.Sprintf("%s: connecting to %s:%d as %s, database %s: %s; check the host, port, credentials and that the server is running",
			c.opts.Dialect, host, c.cfg.Port, c.cfg.User, c.cfg.Database, detail)
		var pgErr *pgconn.PgError
		code := ""
		if errors.As(err, &pgErr) {
			code = pgErr.Code
		}
		return nil, warehouse.VendorError(c.opts.Dialect, code, msg, "", errors.New(detail))
	}
	return pc, nil
}

// release returns pc to the pool unless it may be in an unknown state.
func (c *Conn) release(pc *pgx.Conn, broken bool) {
	defer func() { <-c.sem }()
	c.mu.Lock()
	defer c.mu.Unlock()
	if broken || c.closed || pc.IsClosed() || pc.PgConn().TxStatus() != 'I' {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		pc.Close(ctx)
		return
	}
	c.idle = append(c.idle, pc)
}

// Close implements warehouse.Conn.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, pc := range c.idle {
		errs = append(errs, pc.Close(ctx))
	}
	c.idle = nil
	return errors.Join(errs...)
}

// Dialect implements warehouse.Conn.
func (c *Conn) Dialect() string { return c.opts.Dialect }

func (c *Conn) wrapErr(ctx context.Context, err error, query string) error {
	var we *warehouse.Error
	if errors.As(err, &we) {
		return err
	}
	// Query errors carry no credentials; they are shown as the server
	// wrote them (masking the password's value here would garble messages
	// and tell an agent whether a string it put in its SQL is the password).
	msg := "postgres: " + err.Error()
	var pgErr *pgconn.PgError
	switch {
	case ctx.Err() != nil:
		return &warehouse.Error{Class: warehouse.ClassCanceled, Message: "postgres: query canceled: " + ctx.Err().Error(), SQL: query, Err: errors.Join(ctx.Err(), err)}
	case errors.As(err, &pgErr) && pgErr.Code == "57014":
		return &warehouse.Error{Class: warehouse.ClassCanceled, Message: msg + " (statement_timeout is " + c.cfg.RuntimeParams["statement_timeout"] + " ms)", SQL: query, Err: err}
	}
	code := ""
	if pgErr != nil {
		code = pgErr.Code
	}
	return warehouse.VendorError(c.opts.Dialect, code, msg, query, err)
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// run executes fn with a pooled connection, inside BEGIN READ ONLY when the
// Conn is read-only; the transaction is always rolled back (nothing to keep).
func (c *Conn) run(ctx context.Context, query string, fn func(q querier) error) error {
	pc, err := c.acquire(ctx)
	if err != nil {
		return err
	}
	broken := false
	defer func() { c.release(pc, broken) }()
	if !c.opts.ReadOnly {
		if err := fn(pc); err != nil {
			broken = ctx.Err() != nil
			return c.wrapErr(ctx, err, query)
		}
		return nil
	}
	tx, err := pc.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		broken = true
		return c.wrapErr(ctx, err, query)
	}
	ferr := fn(tx)
	rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tx.Rollback(rctx); err != nil || ctx.Err() != nil {
		broken = true
	}
	if ferr != nil {
		return c.wrapErr(ctx, ferr, query)
	}
	return nil
}

// Query implements warehouse.Conn.
func (c *Conn) Query(ctx context.Context, query string, opts warehouse.QueryOptions) (*warehouse.Result, error) {
	var res *warehouse.Result
	err := c.run(ctx, query, func(q querier) error {
		rows, err := q.Query(ctx, query)
		if err != nil {
			return err
		}
		defer rows.Close()
		fds := rows.FieldDescriptions()
		tm := rows.Conn().TypeMap()
		cols := make([]warehouse.Column, len(fds))
		kinds := make([]warehouse.Kind, len(fds))
		for i, fd := range fds {
			typ := "oid:" + strconv.FormatUint(uint64(fd.DataTypeOID), 10)
			if t, ok := tm.TypeForOID(fd.DataTypeOID); ok {
				typ = t.Name
			}
			cols[i] = warehouse.Column{Name: fd.Name, Type: typ}
			kinds[i] = warehouse.KindOf(typ)
		}
		res, err = warehouse.Collect(cols, opts, func() ([]any, bool, error) {
			if !rows.Next() {
				return nil, false, rows.Err()
			}
			vals, err := rows.Values()
			if err != nil {
				return nil, false, err
			}
			for i, v := range vals {
				vals[i] = warehouse.Normalize(fromDriver(v), kinds[i])
			}
			return vals, true, nil
		})
		if err != nil {
			return err
		}
		// Closing early (at the cap) must still surface a server error.
		rows.Close()
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// fromDriver converts pgtype values into ones warehouse.Normalize knows.
func fromDriver(v any) any {
	switch x := v.(type) {
	case pgtype.Numeric:
		switch {
		case !x.Valid:
			return nil
		case x.NaN:
			return "NaN"
		case x.InfinityModifier == pgtype.Infinity:
			return "Infinity"
		case x.InfinityModifier == pgtype.NegativeInfinity:
			return "-Infinity"
		}
		return warehouse.Decimal{Unscaled: x.Int, Scale: -int(x.Exp)}
	case pgtype.Time:
		if !x.Valid {
			return nil
		}
		d := time.Duration(x.Microseconds) * time.Microsecond
		return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(d)
	case pgtype.Interval:
		if !x.Valid {
			return nil
		}
		return fmt.Sprintf("%d months %d days %d microseconds", x.Months, x.Days, x.Microseconds)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromDriver(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = fromDriver(e)
		}
		return out
	}
	return v
}

// Columns implements warehouse.Conn, from information_schema in ordinal order.
func (c *Conn) Columns(ctx context.Context, rel warehouse.Relation) ([]warehouse.Column, error) {
	const q = `SELECT column_name,
  CASE WHEN data_type IN ('USER-DEFINED', 'ARRAY') THEN udt_name ELSE data_type END
FROM information_schema.columns
WHERE table_catalog = coalesce(NULLIF($1, ''), current_database())
  AND table_schema = coalesce(NULLIF($2, ''), current_schema())
  AND table_name = $3
ORDER BY ordinal_position`
	var cols []warehouse.Column
	var exists bool
	var db string
	err := c.run(ctx, q, func(qr querier) error {
		rows, err := qr.Query(ctx, q, rel.Database, rel.Schema, rel.Name)
		if err != nil {
			return err
		}
		for rows.Next() {
			var col warehouse.Column
			if err := rows.Scan(&col.Name, &col.Type); err != nil {
				rows.Close()
				return err
			}
			cols = append(cols, col)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(cols) > 0 {
			return err
		}
		// information_schema hides relations the user has no privilege on;
		// to_regclass does not, which tells a missing grant from a missing table.
		return qr.QueryRow(ctx, `SELECT current_database(),
  to_regclass(format('%I.%I', coalesce(NULLIF($1, ''), current_schema()), $2::text)) IS NOT NULL`,
			rel.Schema, rel.Name).Scan(&db, &exists)
	})
	if err != nil {
		return nil, err
	}
	if len(cols) > 0 {
		return cols, nil
	}
	name := strings.Join(nonEmpty(rel.Database, rel.Schema, rel.Name), ".")
	switch {
	case rel.Database != "" && rel.Database != db:
		return nil, &warehouse.Error{Class: warehouse.ClassTableNotFound, Message: fmt.Sprintf("postgres: relation %s is in database %s but this connection is to database %s; Postgres cannot read across databases, point the profile at %s", name, rel.Database, db, rel.Database)}
	case exists && (rel.Database == "" || rel.Database == db):
		return nil, &warehouse.Error{Class: warehouse.ClassPermissionDenied, Message: fmt.Sprintf("postgres: relation %s exists but user %s has no privilege on it", name, c.cfg.User)}
	}
	return nil, &warehouse.Error{Class: warehouse.ClassTableNotFound, Message: fmt.Sprintf("postgres: relation %s does not exist in database %s", name, db)}
}

func nonEmpty(parts ...string) []string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
