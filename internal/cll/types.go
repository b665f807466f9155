// Package cll computes column-level lineage: for one compiled query against
// upstream schemas (AnalyzeSQL), for a whole dbt project (AnalyzeProject),
// between two builds of a model (CompareModel) and downstream of changed
// columns (ProjectLineage.Impact).
package cll

import (
	"fmt"
	"strconv"
)

// Kind says how an output column is made from its direct dependencies.
type Kind string

// Column kinds.
const (
	// KindSource has no column dependency (a literal, count(*), now()).
	KindSource Kind = "source"
	// KindPassthrough copies one upstream column under the same name.
	KindPassthrough Kind = "passthrough"
	// KindRenamed copies one upstream column under another name.
	KindRenamed Kind = "renamed"
	// KindDerived computes the value from one or more columns.
	KindDerived Kind = "derived"
	// KindAggregate computes the value with an aggregate function.
	KindAggregate Kind = "aggregate"
)

// Confidence grades a lineage edge.
type Confidence string

// Confidence levels.
const (
	// Exact edges follow from the SQL and the schema.
	Exact Confidence = "exact"
	// Inferred edges needed a guess, e.g. an unqualified column with
	// several candidate tables and no schema to decide.
	Inferred Confidence = "inferred"
	// Unknown edges could not be checked (the column is not in a known schema).
	Unknown Confidence = "unknown"
)

// Schema maps a relation name as written in SQL (case-insensitive, quotes
// stripped, possibly database.schema.table) to its ordered columns. A nil
// or empty Schema means "no schema": columns are taken as written.
type Schema map[string][]string

// ColumnRef is one physical column a query reads.
type ColumnRef struct {
	Table      string     `json:"table"`
	Column     string     `json:"column"`
	Confidence Confidence `json:"confidence"`
}

// String renders table.column.
func (c ColumnRef) String() string { return c.Table + "." + c.Column }

// OutputColumn is one column the query produces.
type OutputColumn struct {
	Name string      `json:"name"`
	Kind Kind        `json:"kind"`
	Deps []ColumnRef `json:"deps"`
	// Digest identifies the column's computation down to physical columns,
	// ignoring aliases, formatting and comments.
	Digest Digest `json:"digest"`
}

// Digest is a stable 64-bit hash of a computation; it renders as hex.
type Digest uint64

func (d Digest) String() string { return strconv.FormatUint(uint64(d), 16) }

// MarshalText renders the digest as hex in JSON.
func (d Digest) MarshalText() ([]byte, error) { return strconv.AppendUint(nil, uint64(d), 16), nil }

// UnmarshalText parses a hex digest.
func (d *Digest) UnmarshalText(b []byte) error {
	v, err := strconv.ParseUint(string(b), 16, 64)
	if err != nil {
		return fmt.Errorf("parse digest %q: %w", b, err)
	}
	*d = Digest(v)
	return nil
}

// QueryLineage is the column lineage of one query.
type QueryLineage struct {
	Dialect string         `json:"dialect"`
	Columns []OutputColumn `json:"columns"`
	// RowDeps are the columns that decide which rows exist (JOIN keys,
	// WHERE, GROUP BY, HAVING, QUALIFY, ORDER BY, PIVOT inputs), gathered
	// through CTEs and subqueries.
	RowDeps      []ColumnRef `json:"row_deps"`
	Opaque       bool        `json:"opaque"`
	OpaqueReason string      `json:"opaque_reason,omitempty"`
	// InternalError marks an opaque result caused by a bug of Ripple's
	// parser or resolver (a recovered panic), not by the SQL.
	InternalError bool `json:"internal_error,omitempty"`
	// Tables are the physical relations read, as written, in first-use order.
	Tables []string `json:"tables"`
	// RowDigest identifies the row-shaping logic (filters, joins, grouping,
	// DISTINCT) so that a change to it can be told apart from value changes.
	RowDigest Digest          `json:"row_digest"`
	Structure *ModelStructure `json:"structure,omitempty"`
}

// Column returns the output column with this name (case-insensitive).
func (q *QueryLineage) Column(name string) (*OutputColumn, bool) {
	for i := range q.Columns {
		if equalFold(q.Columns[i].Name, name) {
			return &q.Columns[i], true
		}
	}
	return nil, false
}

// ModelStructure is the shape of a model's SQL for analyze_model.
type ModelStructure struct {
	Refs            []string      `json:"refs"`
	Projections     []Projection  `json:"projections"`
	Filters         []string      `json:"filters"`
	Joins           []JoinInfo    `json:"joins"`
	GroupBy         []string      `json:"group_by"`
	Having          []string      `json:"having"`
	OrderBy         []string      `json:"order_by"`
	Aggregations    []Aggregation `json:"aggregations"`
	Distinct        bool          `json:"distinct"`
	HasSubquery     bool          `json:"has_subquery"`
	HasCTE          bool          `json:"has_cte"`
	IsSetOperation  bool          `json:"is_set_operation"`
	Unparseable     bool          `json:"unparseable"`
	ParseError      string        `json:"parse_error,omitempty"`
	CTENames        []string      `json:"cte_names,omitempty"`
	QualifyFilters  []string      `json:"qualify,omitempty"`
	WindowFunctions int           `json:"window_functions"`
}

// Projection is one output column in ModelStructure.
type Projection struct {
	Name          string   `json:"name"`
	SourceColumns []string `json:"source_columns"`
	IsAggregate   bool     `json:"is_aggregate"`
	IsDerived     bool     `json:"is_derived"`
}

// JoinInfo is one join in ModelStructure.
type JoinInfo struct {
	Table     string `json:"table"`
	JoinType  string `json:"join_type"`
	Condition string `json:"condition"`
}

// Aggregation is one aggregate call in ModelStructure.
type Aggregation struct {
	Function string `json:"function"`
	Column   string `json:"column"`
}
