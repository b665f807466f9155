package warehouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/ripple-data/ripple/internal/dialect"
)

// Querier is the part of Conn CatalogColumns needs.
type Querier interface {
	Query(ctx context.Context, sql string, opts QueryOptions) (*Result, error)
}

// CatalogColumns reads a relation's columns from the standard
// information_schema.columns of catalog (database) through q, with the
// names as literals (the HTTP APIs take no bind parameters): warehouses
// whose names match case-insensitively compare lower-cased, the others
// exactly or after the warehouse's own folding. Types keep their
// parameters where the view reports them separately (withScale: Snowflake's
// NUMBER with numeric_precision/numeric_scale → NUMBER(p,s)). An
// empty answer is table_not_found: information_schema only shows what the
// role may read, so the message says both.
func CatalogColumns(ctx context.Context, q Querier, d dialect.Dialect, catalog string, rel Relation, withScale bool) ([]Column, error) {
	view := "information_schema.columns"
	if catalog != "" {
		view = d.QuoteIdent(catalog) + "." + view
	}
	rec := d.Record()
	match := func(col, v string) string {
		if rec.Identifiers.CaseInsensitive {
			return "LOWER(" + col + ") = " + d.StringLiteral(strings.ToLower(v))
		}
		if f := d.FoldIdent(v); f != v {
			return "(" + col + " = " + d.StringLiteral(v) + " OR " + col + " = " + d.StringLiteral(f) + ")"
		}
		return col + " = " + d.StringLiteral(v)
	}
	where := []string{match("table_name", rel.Name)}
	if rel.Schema != "" {
		where = append(where, match("table_schema", rel.Schema))
	}
	fields := "column_name, data_type"
	if withScale {
		fields += ", numeric_precision, numeric_scale"
	}
	sql := "SELECT " + fields + " FROM " + view + " WHERE " + strings.Join(where, " AND ") + " ORDER BY ordinal_position"
	res, err := q.Query(ctx, sql, QueryOptions{Limit: -1})
	if err != nil {
		return nil, err
	}
	cols := make([]Column, 0, len(res.Rows))
	for _, r := range res.Rows {
		name, _ := r[0].(string)
		typ, _ := r[1].(string)
		if withScale && r[2] != nil && r[3] != nil && !strings.Contains(typ, "(") {
			typ = fmt.Sprintf("%s(%v,%v)", typ, r[2], r[3])
		}
		cols = append(cols, Column{Name: name, Type: typ})
	}
	if len(cols) == 0 {
		name := strings.Join(nonEmpty(catalog, rel.Schema, rel.Name), ".")
		return nil, &Error{Class: ClassTableNotFound, SQL: sql,
			Message: fmt.Sprintf("%s: relation %s does not exist, or the role cannot see it", d.Name(), name)}
	}
	return cols, nil
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
