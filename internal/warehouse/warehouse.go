// Package warehouse holds what every warehouse adapter shares: result sets,
// relations, error classification and the dialect-independent helpers.
// Adapters live in sub-packages (duckdb, postgres, ...); consumers such as
// internal/diff declare the narrow interface they need.
package warehouse

import (
	"context"
	"time"
)

// DefaultRowLimit caps result sets handed back to callers.
const DefaultRowLimit = 2000

// Column is a physical column of a relation or result set.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Result is a capped, in-memory result set.
type Result struct {
	Columns []Column `json:"columns"`
	Rows    [][]any  `json:"rows"`
	// More is true when rows were cut at the limit.
	More bool `json:"more"`
	// Total is the full row count when it was cheap to know, else nil.
	Total *int64 `json:"total,omitempty"`
	// BytesProcessed is what the warehouse scanned (BigQuery's dry run),
	// when it says.
	BytesProcessed *int64 `json:"bytes_processed,omitempty"`
	// Truncated is true when rows were cut at the byte cap or long values
	// were shortened (see QueryOptions.MaxBytes, MaxCellBytes).
	Truncated bool `json:"truncated,omitempty"`
	// Bytes is the approximate JSON size of Rows.
	Bytes int64 `json:"bytes"`
}

// Relation names a table or view.
type Relation struct {
	Database string `json:"database,omitempty"`
	Schema   string `json:"schema,omitempty"`
	Name     string `json:"name"`
}

// QueryOptions bound a query.
type QueryOptions struct {
	// Limit caps the rows returned (0 = DefaultRowLimit, <0 = no cap).
	Limit int
	// MaxBytes caps the approximate JSON size of the rows returned
	// (0 = DefaultMaxResultBytes, <0 = no cap).
	MaxBytes int64
	// MaxCellBytes shortens longer text values (0 = DefaultMaxCellBytes,
	// <0 = no cap).
	MaxCellBytes int
}

// Conn is the full adapter interface implemented by every adapter. Consumers
// should declare and accept the subset they use.
type Conn interface {
	// Query runs one statement and returns at most opts.Limit rows. It must
	// honour ctx cancellation by interrupting the statement in the warehouse.
	Query(ctx context.Context, sql string, opts QueryOptions) (*Result, error)
	// Columns returns the physical columns of a relation in warehouse order,
	// or an error classified as table_not_found.
	Columns(ctx context.Context, rel Relation) ([]Column, error)
	// Dialect names the SQL dialect (duckdb, postgres, snowflake, ...).
	Dialect() string
	Close() error
}

// Settings are Ripple's own bounds on a connection, the same for every
// adapter (internal/warehouse/open fills them from flags and the profile).
type Settings struct {
	// ReadOnly asks the warehouse itself to refuse writes where it can
	// (Postgres/Redshift BEGIN READ ONLY, BigQuery's dry-run statement type,
	// DuckDB READ_ONLY); the statement guard applies on top of it.
	ReadOnly bool
	// QueryTimeout bounds each statement, in the warehouse where it has a
	// setting for it and always through the context (0 = none).
	QueryTimeout time.Duration
	// MaxBytes refuses a statement that would scan more (BigQuery's dry
	// run reports it before anything is billed); 0 = no limit.
	MaxBytes int64
	// MaxConns bounds concurrent statements on the connection, shared by
	// the concurrent steps of an operation (0 = 4).
	MaxConns int
}

// Conns is MaxConns with its default.
func (s Settings) Conns() int {
	if s.MaxConns > 0 {
		return s.MaxConns
	}
	return 4
}

// WithTimeout bounds ctx by QueryTimeout.
func (s Settings) WithTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.QueryTimeout > 0 {
		return context.WithTimeout(ctx, s.QueryTimeout)
	}
	return context.WithCancel(ctx)
}

// Gate bounds concurrent statements for adapters without a driver pool
// (HTTP APIs): Enter blocks until a slot is free or ctx ends.
type Gate chan struct{}

// NewGate makes a gate of n slots.
func NewGate(n int) Gate { return make(Gate, n) }

// Enter takes a slot; the returned func gives it back.
func (g Gate) Enter(ctx context.Context) (func(), error) {
	select {
	case g <- struct{}{}:
		return func() { <-g }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
