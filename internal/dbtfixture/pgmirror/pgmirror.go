// Package pgmirror copies a dbtfixture build into PostgreSQL so that the
// same scenario can be verified on a second, real warehouse. The build must
// use a DuckDB file named after the Postgres database, so that the
// artifacts' three-part relation names resolve unchanged in Postgres.
package pgmirror

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	_ "github.com/duckdb/duckdb-go/v2" // DuckDB driver for reading the build

	"github.com/ripple-data/ripple/internal/dbtfixture"
)

// Copy recreates every table and view of the build's schemas (base,
// current and the source schemas) as tables in Postgres. Views become
// tables: Ripple reads materializations from the manifest, not the warehouse.
func Copy(ctx context.Context, b *dbtfixture.Built, dsn string) error {
	duck, err := sql.Open("duckdb", b.DBPath+"?access_mode=READ_ONLY")
	if err != nil {
		return err
	}
	defer duck.Close()
	pg, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connecting to postgres: %w", err)
	}
	defer pg.Close(ctx)

	rows, err := duck.QueryContext(ctx, `select table_schema, table_name from information_schema.tables
		where table_catalog = ? and table_schema not in ('information_schema', 'pg_catalog') order by 1, 2`, b.Database)
	if err != nil {
		return fmt.Errorf("listing relations: %w", err)
	}
	type rel struct{ schema, name string }
	var rels []rel
	for rows.Next() {
		var r rel
		if err := rows.Scan(&r.schema, &r.name); err != nil {
			rows.Close()
			return err
		}
		rels = append(rels, r)
	}
	rows.Close()
	created := map[string]bool{}
	for _, r := range rels {
		if !created[r.schema] {
			if _, err := pg.Exec(ctx, "create schema if not exists "+pgx.Identifier{r.schema}.Sanitize()); err != nil {
				return fmt.Errorf("creating schema %s: %w", r.schema, err)
			}
			created[r.schema] = true
		}
		if err := copyRelation(ctx, duck, pg, b.Database, r.schema, r.name); err != nil {
			return fmt.Errorf("copying %s.%s: %w", r.schema, r.name, err)
		}
	}
	return nil
}

// Drop removes the schemas a Copy created.
func Drop(ctx context.Context, dsn string, schemas ...string) error {
	pg, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer pg.Close(ctx)
	for _, s := range schemas {
		if _, err := pg.Exec(ctx, "drop schema if exists "+pgx.Identifier{s}.Sanitize()+" cascade"); err != nil {
			return err
		}
	}
	return nil
}

func copyRelation(ctx context.Context, duck *sql.DB, pg *pgx.Conn, db, schema, name string) error {
	cols, err := duck.QueryContext(ctx, `select column_name, data_type from information_schema.columns
		where table_catalog = ? and table_schema = ? and table_name = ? order by ordinal_position`, db, schema, name)
	if err != nil {
		return err
	}
	var names, defs []string
	for cols.Next() {
		var c, t string
		if err := cols.Scan(&c, &t); err != nil {
			cols.Close()
			return err
		}
		names = append(names, c)
		defs = append(defs, pgx.Identifier{c}.Sanitize()+" "+pgType(t))
	}
	cols.Close()
	ident := pgx.Identifier{schema, name}
	if _, err := pg.Exec(ctx, "drop table if exists "+ident.Sanitize()+" cascade"); err != nil {
		return err
	}
	if _, err := pg.Exec(ctx, "create table "+ident.Sanitize()+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return err
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
	}
	data, err := duck.QueryContext(ctx, fmt.Sprintf(`select %s from "%s"."%s"."%s"`, strings.Join(q, ", "), db, schema, name))
	if err != nil {
		return err
	}
	defer data.Close()
	var batch [][]any
	for data.Next() {
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := data.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			vals[i] = pgValue(v)
		}
		batch = append(batch, vals)
	}
	if err := data.Err(); err != nil {
		return err
	}
	_, err = pg.CopyFrom(ctx, ident, names, pgx.CopyFromRows(batch))
	return err
}

// pgType maps DuckDB's type names to Postgres ones.
func pgType(t string) string {
	u := strings.ToUpper(t)
	switch {
	case u == "INTEGER" || u == "INT" || u == "INT4":
		return "integer"
	case u == "BIGINT" || u == "INT8" || u == "UBIGINT" || u == "UINTEGER":
		return "bigint"
	case u == "SMALLINT" || u == "TINYINT" || u == "UTINYINT" || u == "USMALLINT":
		return "smallint"
	case u == "HUGEINT":
		return "numeric(38,0)"
	case u == "DOUBLE" || u == "FLOAT8":
		return "double precision"
	case u == "FLOAT" || u == "REAL" || u == "FLOAT4":
		return "real"
	case strings.HasPrefix(u, "DECIMAL") || strings.HasPrefix(u, "NUMERIC"):
		return strings.Replace(strings.ToLower(t), "decimal", "numeric", 1)
	case u == "BOOLEAN":
		return "boolean"
	case u == "DATE":
		return "date"
	case strings.HasPrefix(u, "TIMESTAMP WITH TIME ZONE") || u == "TIMESTAMPTZ":
		return "timestamptz"
	case strings.HasPrefix(u, "TIMESTAMP"):
		return "timestamp"
	case u == "TIME":
		return "time"
	}
	return "text"
}

func pgValue(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x
	case *big.Int:
		return x.String()
	case fmt.Stringer:
		return x.String()
	}
	return v
}
