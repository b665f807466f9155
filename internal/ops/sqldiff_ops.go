package ops

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/sqldiff"
)

// SQLDiffInput is two versions of one query.
type SQLDiffInput struct {
	Dialect string                       `json:"dialect,omitempty" jsonschema:"duckdb, postgres, redshift, snowflake, bigquery, databricks, trino or generic (default generic): decides quoting and identifier folding"`
	BaseSQL string                       `json:"base_sql" jsonschema:"the base version of the query (one SELECT statement)"`
	SQL     string                       `json:"sql" jsonschema:"the current version of the query (one SELECT statement)"`
	Schema  map[string]map[string]string `json:"schema,omitempty" jsonschema:"optional upstream tables {table: {column: type}}, as in sql_lineage: a star over them names their columns when changes are attributed to output columns"`
	// order keeps the column order of Schema when the caller knows it.
	order map[string][]string
}

// WithSchemaOrder records the column order of Schema (the CLI reads it
// from the file; JSON objects have none).
func (in *SQLDiffInput) WithSchemaOrder(order map[string][]string) { in.order = order }

func addSQLDiffOps(r *Registry) {
	Add(r, Spec{Name: "sql_diff", Title: "Structural SQL diff", CustomCLI: true,
		Description: "What changed between two versions of a query, through the SQL parser: cosmetic (layout, comments, keyword case, alias or CTE names, redundant parentheses, " +
			"quoting folded alike, <> vs !=, optional AS, trailing semicolon) or a list of changes {kind, column, scope, before, after} with kind column_added, column_removed, " +
			"column_renamed, column_expression, filter, join, group_by, source, distinct, order_by, limit or set_operation, attributed to the final output columns through CTEs " +
			"and subqueries. SQL that does not parse gives changes null and the parse error. The CLI form: ripple sql-diff --dialect D --base-sql-file A --sql-file B --json."},
		func(ctx context.Context, s *Session, in *SQLDiffInput) (*sqldiff.Result, error) {
			return SQLDiff(*in)
		})
}

// SQLDiff compares two versions of a query (the sql_diff operation).
func SQLDiff(in SQLDiffInput) (*sqldiff.Result, error) {
	if strings.TrimSpace(in.BaseSQL) == "" || strings.TrimSpace(in.SQL) == "" {
		return nil, fmt.Errorf("both base_sql and sql are required (CLI: --base-sql-file/--base-sql and --sql-file/--sql)")
	}
	var schema map[string][]string
	if len(in.Schema) > 0 {
		schema = make(map[string][]string, len(in.Schema))
		for t, cols := range in.Schema {
			if order, ok := in.order[t]; ok {
				schema[t] = order
				continue
			}
			schema[t] = sortedKeys(cols)
		}
	}
	dialect := in.Dialect
	if dialect == "" {
		dialect = "generic"
	}
	r := sqldiff.DiffSchema(dialect, in.BaseSQL, in.SQL, schema)
	if r.Changes == nil {
		// Results never carry a null list (the CLI prints what the MCP
		// tool returns); error says why nothing is listed.
		r.Changes = []sqldiff.Change{}
	}
	return &r, nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
