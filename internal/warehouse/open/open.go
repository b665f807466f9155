// Package open connects to the warehouse a dbt profile target names. It is
// separate from internal/warehouse so that package stays free of drivers
// (and of import cycles with the adapters).
package open

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
	"github.com/ripple-data/ripple/internal/warehouse/postgres"
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
}

// Wired lists the adapter types this build can connect to.
func Wired() []string { return []string{"duckdb", "postgres"} }

// Open connects to t. Errors name the profiles file, profile and target,
// never the password.
func Open(ctx context.Context, t profiles.Target, opts OpenOptions) (warehouse.Conn, error) {
	lim, err := limits(t, opts)
	if err != nil {
		return nil, err
	}
	opts.StatementTimeout = lim.EffectiveTimeout()
	var conn warehouse.Conn
	switch t.Type {
	case "duckdb":
		path := t.Path
		if opts.DuckDBPath != "" {
			path = opts.DuckDBPath
		}
		var c *duckdb.Conn
		c, err = duckdb.Open(ctx, duckdb.Options{
			Path:                path,
			ReadOnly:            opts.ReadOnly,
			AllowExternalAccess: opts.AllowExternalAccess,
			Catalog:             t.Database,
		})
		if err == nil {
			conn = c
		}
	case "postgres", "postgresql":
		port := t.Port
		if port == 0 {
			port = 5432
		}
		var c *postgres.Conn
		c, err = postgres.Open(ctx, postgres.Options{
			Host:             t.Host,
			Port:             port,
			User:             t.User,
			Password:         t.Password,
			Database:         t.Database,
			SearchPath:       t.Schema,
			ReadOnly:         opts.ReadOnly,
			StatementTimeout: opts.StatementTimeout,
			MaxConns:         t.Threads,
			SSLMode:          sslMode(t),
		})
		if err == nil {
			conn = c
		}
	default:
		return nil, fmt.Errorf("%s: no driver wired for %s in this build (this build connects to %s); run Ripple's static operations, or use a target of a wired type",
			t.Where(), t.Type, strings.Join(Wired(), ", "))
	}
	if err != nil {
		// The adapter's own error already carries its class hint; use its
		// bare message so the hint is not repeated.
		var we *warehouse.Error
		msg := err.Error()
		if errors.As(err, &we) && we.Message != "" {
			msg = we.Message
		}
		// Masked by shape, not by value: see warehouse.Redact.
		msg = warehouse.Redact(msg)
		if t.File != "" {
			msg = t.Where() + ": " + msg
		}
		return nil, &warehouse.Error{Class: warehouse.Classify(err), Message: msg, Err: err}
	}
	// Every adapter is guarded: one read-only statement per Query, the
	// statement timeout, byte-capped results.
	return warehouse.Guarded(conn, lim), nil
}

func sslMode(t profiles.Target) string {
	if v, ok := t.Extra["sslmode"].(string); ok {
		return v
	}
	return ""
}
