// Package open connects to the warehouse a dbt profile target names. It is
// separate from internal/warehouse so that package stays free of drivers
// (and of import cycles with the adapters).
package open

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/bigquery"
	"github.com/ripple-data/ripple/internal/warehouse/databricks"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
	"github.com/ripple-data/ripple/internal/warehouse/postgres"
	"github.com/ripple-data/ripple/internal/warehouse/redshift"
	"github.com/ripple-data/ripple/internal/warehouse/snowflake"
	"github.com/ripple-data/ripple/internal/warehouse/trino"
)

// OpenOptions adjust how a target is opened.
type OpenOptions struct {
	// ReadOnly must be set by every operation that does not write.
	ReadOnly bool
	// AllowExternalAccess lets DuckDB read local files and URLs.
	AllowExternalAccess bool
	// DuckDBPath overrides the profile's path (e.g. a copy or fixture).
	DuckDBPath string
	// StatementTimeout bounds each statement in the warehouse (0: the
	// profile's statement_timeout, else the default; <0: none).
	StatementTimeout time.Duration
	// MaxResultBytes and MaxCellBytes cap results (see warehouse.Limits).
	MaxResultBytes int64
	MaxCellBytes   int
	// MaxBytes refuses statements that would scan more (Ripple's
	// --max-bytes; BigQuery's dry run measures it), 0 = no limit.
	MaxBytes int64
}

// connector opens one adapter type from a profile target.
type connector func(ctx context.Context, t profiles.Target, s warehouse.Settings) (warehouse.Conn, error)

// connectors is the one place adapters are wired: adding a warehouse adds
// its record (internal/dialect/records), its package and one line here.
// Keys are record names; aliases (postgresql, starburst) resolve through
// the records.
func connectors(opts OpenOptions) map[string]connector {
	return map[string]connector{
		"duckdb":     duckdbConnector(opts),
		"postgres":   postgresConnector("postgres"),
		"redshift":   redshift.Connect,
		"snowflake":  snowflake.Connect,
		"bigquery":   bigquery.Connect,
		"databricks": databricks.Connect,
		"trino":      trino.Connect,
	}
}

// Wired lists the adapter types this build can connect to.
func Wired() []string {
	names := make([]string, 0, 8)
	for n := range connectors(OpenOptions{}) {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Open connects to t. Errors name the profiles file, profile and target,
// never a secret of the profile.
func Open(ctx context.Context, t profiles.Target, opts OpenOptions) (warehouse.Conn, error) {
	lim, err := limits(t, opts)
	if err != nil {
		return nil, err
	}
	opts.StatementTimeout = lim.EffectiveTimeout()
	name := strings.ToLower(t.Type)
	if r, ok := dialect.Lookup(name); ok {
		name = r.Name
	}
	connect, ok := connectors(opts)[name]
	if !ok {
		return nil, fmt.Errorf("%s: no driver wired for %s in this build (this build connects to %s); run Ripple's static operations, or use a target of a wired type",
			t.Where(), t.Type, strings.Join(Wired(), ", "))
	}
	s := warehouse.Settings{ReadOnly: opts.ReadOnly, QueryTimeout: opts.StatementTimeout, MaxBytes: opts.MaxBytes}
	conn, err := connect(ctx, t, s)
	if err != nil {
		// The adapter's own error already carries its class hint; use its
		// bare message so the hint is not repeated.
		var we *warehouse.Error
		msg := err.Error()
		class := warehouse.Classify(err)
		if errors.As(err, &we) && we.Message != "" {
			msg = we.Message
		}
		// Masked by shape, not by value: see warehouse.Redact.
		msg = warehouse.Redact(msg)
		if t.File != "" && !strings.HasPrefix(msg, t.Where()) {
			msg = t.Where() + ": " + msg
		}
		return nil, &warehouse.Error{Class: class, Message: msg, Err: err}
	}
	// Every adapter is guarded: one read-only statement per Query, the
	// statement timeout, byte-capped results.
	return warehouse.Guarded(conn, lim), nil
}

func duckdbConnector(opts OpenOptions) connector {
	return func(ctx context.Context, t profiles.Target, s warehouse.Settings) (warehouse.Conn, error) {
		path := t.Path
		if opts.DuckDBPath != "" {
			path = opts.DuckDBPath
		}
		return duckdb.Open(ctx, duckdb.Options{Path: path, ReadOnly: s.ReadOnly, AllowExternalAccess: opts.AllowExternalAccess, Catalog: t.Database})
	}
}

// postgresConnector opens Postgres, or a warehouse speaking its protocol.
func postgresConnector(dialectName string) connector {
	return func(ctx context.Context, t profiles.Target, s warehouse.Settings) (warehouse.Conn, error) {
		port := t.Port
		if port == 0 {
			port = 5432
		}
		return postgres.Open(ctx, postgres.Options{
			Host: t.Host, Port: port, User: t.User, Password: t.Password, Database: t.Database,
			SearchPath: t.Schema, ReadOnly: s.ReadOnly, StatementTimeout: s.QueryTimeout,
			MaxConns: t.Threads, SSLMode: sslMode(t), Dialect: dialectName,
		})
	}
}

func sslMode(t profiles.Target) string {
	if v, ok := t.Extra["sslmode"].(string); ok {
		return v
	}
	return ""
}
