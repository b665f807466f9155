package redshift_test

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ripple-data/ripple/internal/golden"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/redshift"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
)

// svvColumns stands in for Redshift's SVV_COLUMNS on PostgreSQL: the same
// columns, over information_schema, in the test schema (found first on the
// search path), so the adapter's own catalog query runs for real.
const svvColumns = `CREATE VIEW %[1]s.svv_columns AS SELECT table_catalog::text AS table_catalog, table_schema::text AS table_schema,
  table_name::text AS table_name, column_name::text AS column_name, ordinal_position::int AS ordinal_position,
  data_type::text AS data_type, character_maximum_length::int AS character_maximum_length,
  numeric_precision::int AS numeric_precision, numeric_scale::int AS numeric_scale
FROM information_schema.columns`

// The shared suite on real PostgreSQL with Redshift's dialect: Redshift
// and Postgres agree on the wire protocol, BEGIN READ ONLY, cancel
// requests, SQLSTATE codes and most of the generated SQL (the spellings
// Redshift needs instead of IS DISTINCT FROM and FILTER are valid Postgres
// too); where they disagree the golden files below hold the SQL.
func TestSuiteOnPostgres(t *testing.T) {
	dsn := warehousetest.RequireEnv(t, "RIPPLE_TEST_POSTGRES_DSN")
	// Redshift reads \ and \' as escapes in every '...' literal; this is
	// PostgreSQL's setting for the same rule (sent as the startup
	// "options" pgx takes from PGOPTIONS).
	t.Setenv("PGOPTIONS", "-c standard_conforming_strings=off -c escape_string_warning=off")
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		schema := testSchema(t, dsn)
		return warehousetest.Target{
			Schema:    schema,
			SlowQuery: "SELECT COUNT(*) FROM generate_series(1, 1000000) a CROSS JOIN generate_series(1, 1000000) b",
			Setup:     setup(dsn),
			Skip: map[string]string{
				"Expressions": "Redshift's APPROXIMATE PERCENTILE_DISC does not exist in PostgreSQL; pinned by the golden files and run in TestLive",
			},
			Open: func(t *testing.T) warehouse.Conn {
				c, err := redshift.Connect(context.Background(), pgTarget(t, dsn, schema), warehouse.Settings{ReadOnly: true, QueryTimeout: time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
}

func pgTarget(t *testing.T, dsn, schema string) profiles.Target {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	port, _ := strconv.Atoi(u.Port())
	return profiles.Target{Type: "redshift", Host: u.Hostname(), Port: port, User: u.User.Username(), Password: pw,
		Database: strings.TrimPrefix(u.Path, "/"), Schema: schema, Extra: map[string]any{"sslmode": u.Query().Get("sslmode"), "method": "database"}}
}

func testSchema(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	schema := fmt.Sprintf("ripple_rs%d", time.Now().UnixNano())
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf(svvColumns, schema)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
		admin.Close(ctx)
	})
	return schema
}

func setup(dsn string) warehousetest.SetupFn {
	return func(ctx context.Context, stmts ...string) error {
		w, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer w.Close(ctx)
		for _, s := range stmts {
			if _, err := w.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	}
}

func TestColumnsSQLGolden(t *testing.T) {
	var b strings.Builder
	for _, rel := range []warehouse.Relation{{Database: "Analytics", Schema: "DBT_Prod", Name: "Orders"}, {Name: "it's"}} {
		b.WriteString(redshift.ColumnsSQL(rel) + ";\n")
	}
	golden.Assert(t, "testdata/columns.golden", []byte(b.String()))
}

func TestOptions(t *testing.T) {
	_, err := redshift.Options(profiles.Target{Type: "redshift", Extra: map[string]any{"method": "iam"}, File: "profiles.yml"}, warehouse.Settings{})
	if err == nil || !strings.Contains(err.Error(), "not supported by Ripple yet") {
		t.Errorf("iam: %v", err)
	}
	o, err := redshift.Options(profiles.Target{Type: "redshift", Host: "h", Threads: 8}, warehouse.Settings{})
	if err != nil || o.Port != 5439 || o.MaxConns != 8 || o.Dialect != "redshift" || o.SSLMode != "prefer" {
		t.Errorf("%+v %v", o, err)
	}
}

// TestLive runs the suite against a real Redshift when
// RIPPLE_TEST_REDSHIFT_HOST, _USER, _PASSWORD, _DATABASE (and _SCHEMA, a
// schema the user may create tables in) are set.
func TestLive(t *testing.T) {
	host := warehousetest.LiveEnv(t, "RIPPLE_TEST_REDSHIFT_HOST")
	tg := profiles.Target{Type: "redshift", Host: host, User: warehousetest.Getenv("RIPPLE_TEST_REDSHIFT_USER", ""),
		Password: warehousetest.Getenv("RIPPLE_TEST_REDSHIFT_PASSWORD", ""), Database: warehousetest.Getenv("RIPPLE_TEST_REDSHIFT_DATABASE", "dev"),
		Schema: warehousetest.Getenv("RIPPLE_TEST_REDSHIFT_SCHEMA", "public"), Extra: map[string]any{"sslmode": "require"}}
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		return warehousetest.Target{
			Dialect:   "redshift",
			Schema:    tg.Schema,
			SlowQuery: "SELECT COUNT(*) FROM stv_blocklist a, stv_blocklist b, stv_blocklist c",
			Setup: warehousetest.SetupThrough(func(ctx context.Context) (warehouse.Conn, error) {
				return redshift.Connect(ctx, tg, warehouse.Settings{})
			}),
			Open: func(t *testing.T) warehouse.Conn {
				c, err := redshift.Connect(context.Background(), tg, warehouse.Settings{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
}
