// Package redshift is the Amazon Redshift adapter. Redshift speaks the
// PostgreSQL wire protocol, so it runs on the postgres adapter (pgx, every
// statement in BEGIN READ ONLY, cancel requests that stop the query on the
// server, statement_timeout) with Redshift's own record for SQL spelling
// and error codes, and reads columns from SVV_COLUMNS, which (unlike
// information_schema) also lists late-binding views and Spectrum tables.
package redshift

import (
	"context"
	"fmt"
	"strings"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/postgres"
)

// Conn is a postgres pool speaking Redshift.
type Conn struct {
	*postgres.Conn
	database string
}

var _ warehouse.Conn = (*Conn)(nil)

// Options returns the postgres options for a dbt-redshift target:
// method database (host, port, user, password, dbname, schema, sslmode,
// connect_timeout, threads). Method iam needs the AWS SDK's
// GetClusterCredentials, which this build does not include.
func Options(t profiles.Target, s warehouse.Settings) (postgres.Options, error) {
	switch m := strings.ToLower(t.Text("method")); m {
	case "", "database":
	case "iam", "iam_role":
		return postgres.Options{}, fmt.Errorf("%s: redshift method %s is not supported by Ripple yet (it needs the AWS SDK); use method: database with a database user, or fetch temporary credentials (aws redshift get-cluster-credentials) into env_var() fields", t.Where(), m)
	default:
		return postgres.Options{}, fmt.Errorf("%s: unknown redshift method %q (want database)", t.Where(), m)
	}
	port := t.Port
	if port == 0 {
		port = 5439
	}
	timeout, err := t.Seconds("connect_timeout")
	if err != nil {
		return postgres.Options{}, err
	}
	sslmode := t.Text("sslmode")
	if sslmode == "" {
		sslmode = "prefer"
	}
	maxConns := s.MaxConns
	if maxConns == 0 {
		maxConns = t.Threads
	}
	return postgres.Options{
		Host: t.Host, Port: port, User: t.User, Password: t.Password, Database: t.Database, SearchPath: t.Schema,
		ReadOnly: s.ReadOnly, StatementTimeout: s.QueryTimeout, SSLMode: sslmode, MaxConns: maxConns,
		ConnectTimeout: timeout, Dialect: "redshift",
	}, nil
}

// Connect opens the target (the registration in internal/warehouse/open).
func Connect(ctx context.Context, t profiles.Target, s warehouse.Settings) (warehouse.Conn, error) {
	o, err := Options(t, s)
	if err != nil {
		return nil, err
	}
	return Open(ctx, o)
}

// Open connects with postgres options (Dialect is forced to redshift).
func Open(ctx context.Context, o postgres.Options) (*Conn, error) {
	o.Dialect = "redshift"
	c, err := postgres.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	return &Conn{Conn: c, database: o.Database}, nil
}

// ColumnsSQL is the SVV_COLUMNS query for rel (golden-tested; SVV_COLUMNS
// has table_catalog, table_schema, table_name, column_name,
// ordinal_position, data_type, character_maximum_length,
// numeric_precision, numeric_scale). Names are literals so the statement
// runs through the same read-only path as every query; Redshift folds
// identifiers to lower case, and so does the comparison.
func ColumnsSQL(rel warehouse.Relation) string {
	d := dialect.Must("redshift")
	where := []string{"table_name = " + d.StringLiteral(strings.ToLower(rel.Name))}
	if rel.Schema != "" {
		where = append(where, "table_schema = "+d.StringLiteral(strings.ToLower(rel.Schema)))
	} else {
		where = append(where, "table_schema = current_schema()")
	}
	if rel.Database != "" {
		where = append(where, "table_catalog = "+d.StringLiteral(strings.ToLower(rel.Database)))
	}
	return "SELECT column_name, data_type, character_maximum_length, numeric_precision, numeric_scale FROM svv_columns WHERE " +
		strings.Join(where, " AND ") + " ORDER BY ordinal_position"
}

// Columns implements warehouse.Conn from SVV_COLUMNS.
func (c *Conn) Columns(ctx context.Context, rel warehouse.Relation) ([]warehouse.Column, error) {
	q := ColumnsSQL(rel)
	res, err := c.Query(ctx, q, warehouse.QueryOptions{Limit: -1})
	if err != nil {
		return nil, err
	}
	cols := make([]warehouse.Column, 0, len(res.Rows))
	for _, r := range res.Rows {
		name, _ := r[0].(string)
		typ, _ := r[1].(string)
		switch {
		case r[2] != nil && strings.Contains(typ, "char"):
			typ = fmt.Sprintf("%s(%v)", typ, r[2])
		case r[3] != nil && r[4] != nil && typ == "numeric":
			typ = fmt.Sprintf("numeric(%v,%v)", r[3], r[4])
		}
		cols = append(cols, warehouse.Column{Name: name, Type: typ})
	}
	if len(cols) == 0 {
		name := strings.Join(nonEmpty(rel.Database, rel.Schema, rel.Name), ".")
		return nil, &warehouse.Error{Class: warehouse.ClassTableNotFound, SQL: q,
			Message: fmt.Sprintf("redshift: relation %s does not exist in database %s, or the user cannot see it (SVV_COLUMNS lists only what the user may read)", name, c.database)}
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
