// Package warehouse holds what every warehouse adapter shares: result sets,
// relations, error classification and the dialect-independent helpers.
// Adapters live in sub-packages (duckdb, postgres, ...); consumers such as
// internal/diff declare the narrow interface they need.
package warehouse

import (
	"context"
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
