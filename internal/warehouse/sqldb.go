package warehouse

import (
	"context"
	"database/sql"

	"github.com/ripple-data/ripple/internal/dialect"
)

// SQLQuery runs one statement through a database/sql pool (the Snowflake
// and Trino drivers) and collects a capped Result. typeName names a column's
// type for the record's classifier; convert turns a driver value into one
// Normalize knows (nil: use it as is). Errors are returned raw for the
// adapter to classify with its vendor's code.
func SQLQuery(ctx context.Context, db *sql.DB, d dialect.Dialect, query string, opts QueryOptions,
	typeName func(*sql.ColumnType) string, convert func(v any, kind Kind) any) (*Result, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	cols := make([]Column, len(types))
	kinds := make([]Kind, len(types))
	for i, ct := range types {
		cols[i] = Column{Name: ct.Name(), Type: typeName(ct)}
		kinds[i] = d.KindOf(cols[i].Type)
	}
	res, err := Collect(cols, opts, func() ([]any, bool, error) {
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
			if convert != nil {
				v = convert(v, kinds[i])
			}
			vals[i] = Normalize(v, kinds[i])
		}
		return vals, true, nil
	})
	if err != nil {
		return nil, err
	}
	// Closing early (at the cap) must still surface a server error.
	if err := rows.Close(); err != nil {
		return nil, err
	}
	return res, rows.Err()
}

// DecimalText turns a decimal sent as text ("12.50") into an exact number;
// other values pass through.
func DecimalText(v any, kind Kind) any {
	if s, ok := v.(string); ok && kind == KindDecimal {
		if d, ok := ParseDecimal(s); ok {
			return d
		}
	}
	return v
}
