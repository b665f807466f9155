package diff

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ripple-data/ripple/internal/warehouse/postgres"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
)

const pgDSNEnv = "RIPPLE_TEST_POSTGRES_DSN"

// pgEnv writes base and current schemas with a setup connection and returns
// an Env reading them through the read-only Postgres adapter.
func pgEnv(t *testing.T) Env {
	t.Helper()
	dsn := warehousetest.RequireEnv(t, pgDSNEnv)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting to %s: %v", pgDSNEnv, err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	suffix := fmt.Sprintf("%d", time.Now().UnixNano())
	bs, cs := "ripple_diff_b"+suffix, "ripple_diff_c"+suffix
	var db string
	if err := admin.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	stmts := []string{"CREATE SCHEMA " + bs, "CREATE SCHEMA " + cs}
	for _, s := range []struct{ schema, sql string }{
		{bs, `CREATE TABLE %s.customers (id INTEGER, name TEXT, age INTEGER); INSERT INTO %[1]s.customers VALUES (1,'Alice',30),(2,'Bob',25)`},
		{cs, `CREATE TABLE %s.customers (id INTEGER, name TEXT, age INTEGER); INSERT INTO %[1]s.customers VALUES (1,'Alice',30),(2,'Bob',25),(3,'Charlie',35)`},
		{bs, `CREATE VIEW %s.customers_v AS SELECT * FROM %[1]s.customers`},
		{cs, `CREATE VIEW %s.customers_v AS SELECT * FROM %[1]s.customers`},
		{bs, `CREATE TABLE %s.orders (id INTEGER, amount INTEGER); INSERT INTO %[1]s.orders VALUES (1,100),(2,200)`},
		{cs, `CREATE TABLE %s.orders (id INTEGER, amount INTEGER); INSERT INTO %[1]s.orders VALUES (1,150),(2,200),(3,300)`},
		{bs, `CREATE TABLE %s.sales (region TEXT, customer_id INTEGER, revenue DOUBLE PRECISION, note TEXT); INSERT INTO %[1]s.sales VALUES ('eu',1,100,'a'),('eu',2,200,NULL),('us',1,50,'c'),('us',2,NULL,'d')`},
		{cs, `CREATE TABLE %s.sales (region TEXT, customer_id INTEGER, revenue DOUBLE PRECISION, note TEXT); INSERT INTO %[1]s.sales VALUES ('eu',1,100,'a'),('eu',2,250,'b'),('us',1,50,NULL),('us',3,70,'e')`},
		{bs, `CREATE TABLE %s.weird (id INTEGER, column_name TEXT, "1st" INTEGER); INSERT INTO %[1]s.weird VALUES (1,'x',1),(2,'y',2)`},
		{cs, `CREATE TABLE %s.weird (id INTEGER, column_name TEXT, "1st" INTEGER); INSERT INTO %[1]s.weird VALUES (1,'x',1),(2,'z',2)`},
		{bs, `CREATE TABLE %s.people ("CUSTOMER_ID" INTEGER, "AGE" INTEGER); INSERT INTO %[1]s.people VALUES (1,35),(2,25),(3,35)`},
		{cs, `CREATE TABLE %s.people ("CUSTOMER_ID" INTEGER, "AGE" INTEGER); INSERT INTO %[1]s.people VALUES (1,30),(2,25),(3,35)`},
		{bs, `CREATE TABLE %s.emptied (id INTEGER, v NUMERIC(10,2)); INSERT INTO %[1]s.emptied VALUES (1,1.5),(2,2.5),(3,NULL)`},
		{cs, `CREATE TABLE %s.emptied (id INTEGER, v NUMERIC(10,2))`},
		{bs, `CREATE TABLE %s.dups (id INTEGER, v INTEGER); INSERT INTO %[1]s.dups VALUES (1,1),(2,2)`},
		{cs, `CREATE TABLE %s.dups (id INTEGER, v INTEGER); INSERT INTO %[1]s.dups VALUES (1,1),(1,2),(2,2)`},
		{bs, `CREATE TABLE %s.names (id INTEGER, name TEXT); INSERT INTO %[1]s.names VALUES (1,'Alice'),(2,'Bob'),(3,'Charlie'),(4,NULL)`},
		{cs, `CREATE TABLE %s.names (id INTEGER, name TEXT); INSERT INTO %[1]s.names VALUES (1,'Alice'),(2,'Bob'),(3,'Charlie'),(4,'Bob')`},
		{bs, `CREATE TABLE %s.ages (id INTEGER, age INTEGER, day DATE); INSERT INTO %[1]s.ages VALUES (1,25,'2024-01-01'),(2,30,'2024-01-02'),(3,35,'2024-01-05'),(4,50,NULL)`},
		// An owner may revoke its own privileges: a table this role may not
		// read, without needing the right to create roles.
		{bs, `CREATE TABLE %s.secret (id INTEGER); REVOKE ALL ON %[1]s.secret FROM CURRENT_USER`},
		{cs, `CREATE TABLE %s.secret (id INTEGER)`},
		{cs, `CREATE TABLE %s.ages (id INTEGER, age INTEGER, day DATE); INSERT INTO %[1]s.ages VALUES (1,25,'2024-01-01'),(2,30,'2024-01-03'),(3,35,'2024-01-05'),(4,50,NULL)`},
	} {
		stmts = append(stmts, fmt.Sprintf(s.sql, s.schema))
	}
	for _, st := range stmts {
		if _, err := admin.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	t.Cleanup(func() {
		for _, s := range []string{bs, cs} {
			if _, err := admin.Exec(context.Background(), "DROP SCHEMA "+s+" CASCADE"); err != nil {
				t.Errorf("dropping %s: %v", s, err)
			}
		}
	})
	conn, err := postgres.Open(ctx, postgres.Options{DSN: dsn, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var models []model
	for _, n := range []string{"customers", "orders", "sales", "weird", "people", "emptied", "dups", "names", "ages", "secret", "missing"} {
		models = append(models, model{name: n})
	}
	models = append(models, model{name: "customers_v", mat: "view"})
	return Env{Project: handProject(t, db, bs, cs, models...), Conn: conn, Dialect: mustDialect(t, "postgres")}
}

func TestPostgres(t *testing.T) {
	env := pgEnv(t)
	ctx := context.Background()

	t.Run("row_count_diff", func(t *testing.T) {
		res, err := RowCountDiff(ctx, env, RowCountDiffInput{NodeNames: []string{"customers", "customers_v", "missing"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonOf(t, res.Models["customers"]); got != `{"base":2,"curr":3,"base_meta":{"status":"ok"},"curr_meta":{"status":"ok"}}` {
			t.Fatalf("customers = %s", got)
		}
		if rc := res.Models["customers_v"]; *rc.Base != 2 || *rc.Current != 3 {
			t.Fatalf("view = %s", jsonOf(t, rc))
		}
		if rc := res.Models["missing"]; rc.BaseMeta.Status != StatusTableNotFound || rc.CurrentMeta.Status != StatusTableNotFound || !strings.Contains(rc.BaseMeta.Message, "stale dbt artifacts") {
			t.Fatalf("missing = %s", jsonOf(t, rc))
		}
	})

	t.Run("permission_denied", func(t *testing.T) {
		res, err := RowCountDiff(ctx, env, RowCountDiffInput{NodeNames: []string{"secret"}})
		if err != nil {
			t.Fatal(err)
		}
		rc := res.Models["secret"]
		if rc.BaseMeta.Status != StatusPermissionDenied || !strings.Contains(rc.BaseMeta.Message, "permission denied") || !strings.Contains(rc.BaseMeta.Message, "lacks permission") {
			t.Fatalf("base = %s", jsonOf(t, rc))
		}
		if rc.CurrentMeta.Status != StatusOK || rc.Current == nil || *rc.Current != 0 {
			t.Fatalf("current = %s", jsonOf(t, rc))
		}
	})

	t.Run("value_diff", func(t *testing.T) {
		res, err := ValueDiff(ctx, env, ValueDiffInput{Model: "orders", PrimaryKey: Keys{"id"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary != (ValueDiffSummary{Total: 3, Added: 1, Changed: 1}) || jsonOf(t, res.Data.Data) != `[["id",2,1,0,0,null,null],["amount",1,0.5,0,0,150,216.66666666666666]]` {
			t.Fatalf("orders = %+v %s", res.Summary, jsonOf(t, res.Data.Data))
		}
		res, err = ValueDiff(ctx, env, ValueDiffInput{Model: "sales", PrimaryKey: Keys{"region", "customer_id"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary != (ValueDiffSummary{Total: 5, Added: 1, Removed: 1, Changed: 2}) ||
			jsonOf(t, res.Data.Data) != `[["region",3,1,0,0,null,null],["customer_id",3,1,0,0,null,null],["revenue",2,0.6666666666666666,0,0,116.66666666666667,117.5],["note",1,0.3333333333333333,1,1,null,null]]` {
			t.Fatalf("sales = %+v %s", res.Summary, jsonOf(t, res.Data.Data))
		}
		res, err = ValueDiff(ctx, env, ValueDiffInput{Model: "weird", PrimaryKey: Keys{"id"}})
		if err != nil || jsonOf(t, res.Data.Data) != `[["id",2,1,0,0,null,null],["column_name",1,0.5,0,0,null,null],["1st",2,1,0,0,1.5,1.5]]` {
			t.Fatalf("weird = %v %s", err, jsonOf(t, res))
		}
		res, err = ValueDiff(ctx, env, ValueDiffInput{Model: "people", PrimaryKey: Keys{"customer_id"}, Columns: []string{"age"}})
		if err != nil || jsonOf(t, res.Data.Data) != `[["CUSTOMER_ID",3,1,0,0,null,null],["AGE",2,0.6666666666666666,0,0,31.666666666666668,30]]` {
			t.Fatalf("people = %v %s", err, jsonOf(t, res))
		}
		res, err = ValueDiff(ctx, env, ValueDiffInput{Model: "emptied", PrimaryKey: Keys{"id"}})
		if err != nil || res.Summary != (ValueDiffSummary{Total: 3, Removed: 3}) || jsonOf(t, res.Data.Data) != `[["id",0,null,0,0,null,null],["v",0,null,0,0,2,null]]` {
			t.Fatalf("emptied = %v %s", err, jsonOf(t, res))
		}
		_, err = ValueDiff(ctx, env, ValueDiffInput{Model: "dups", PrimaryKey: Keys{"id"}})
		if err == nil || !strings.Contains(err.Error(), "more than once") || !strings.Contains(err.Error(), `GROUP BY "id" HAVING COUNT(*) > 1`) {
			t.Fatalf("dups: %v", err)
		}
		det, err := ValueDiffDetail(ctx, env, ValueDiffDetailInput{Model: "orders", PrimaryKey: Keys{"id"}})
		if err != nil || jsonOf(t, det.Data) != `[[1,100,true,false],[1,150,false,true],[3,300,false,true]]` {
			t.Fatalf("detail = %v %s", err, jsonOf(t, det))
		}
	})

	t.Run("query", func(t *testing.T) {
		res, err := Query(ctx, env, QueryInput{SQLTemplate: "select * from {{ ref('customers') }} order by id", Base: true})
		if err != nil || jsonOf(t, res.Data) != `[[1,"Alice",30],[2,"Bob",25]]` {
			t.Fatalf("query = %v %s", err, jsonOf(t, res))
		}
		qd, err := QueryDiff(ctx, env, QueryDiffInput{SQLTemplate: "select id, amount from {{ ref('orders') }}", PrimaryKeys: []string{"id"}})
		if err != nil || jsonOf(t, qd.Diff.Data) != `[[1,100,true,false],[1,150,false,true],[3,300,false,true]]` || *qd.Summary != (QueryDiffSummary{Added: 1, Changed: 1}) {
			t.Fatalf("query_diff = %v %s", err, jsonOf(t, qd))
		}
		res, err = Query(ctx, env, QueryInput{SQLTemplate: "select g from generate_series(1, 2100) g"})
		if err != nil || len(res.Data) != 2000 || !res.More || *res.TotalRowCount != 2100 {
			t.Fatalf("capped = %v", err)
		}
	})

	t.Run("profile_diff", func(t *testing.T) {
		res, err := ProfileDiff(ctx, env, ProfileDiffInput{Model: "customers"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonOf(t, res.Current.Data), `[["id","integer",3,1,1,3,true,"1","3",2,2],["name","text",3,1,1,3,true,null,null,null,null],["age","integer",3,1,1,3,true,"25","35",30,30]]`; got != want {
			t.Fatalf("current = %s\nwant %s", got, want)
		}
		res, err = ProfileDiff(ctx, env, ProfileDiffInput{Model: "emptied"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonOf(t, res.Current.Data), `[["id","integer",0,null,null,0,null,null,null,null,null],["v","numeric",0,null,null,0,null,null,null,null,null]]`; got != want {
			t.Fatalf("emptied current = %s\nwant %s", got, want)
		}
		if got, want := jsonOf(t, res.Base.Data[1]), `["v","numeric",3,0.6666666666666666,0.6666666666666666,2,false,"1.50","2.50",2,2]`; got != want {
			t.Fatalf("emptied base v = %s\nwant %s", got, want)
		}
	})

	t.Run("top_k_and_histogram", func(t *testing.T) {
		tk, err := TopKDiff(ctx, env, TopKDiffInput{Model: "names", Column: "name", K: 50})
		if err != nil || jsonOf(t, tk) != `{"base":{"values":["Bob","Alice","Charlie"],"counts":[1,1,1],"valids":3,"total":4},"current":{"values":["Bob","Alice","Charlie"],"counts":[2,1,1],"valids":4,"total":4}}` {
			t.Fatalf("top_k = %v %s", err, jsonOf(t, tk))
		}
		h, err := HistogramDiff(ctx, env, HistogramDiffInput{Model: "ages", Column: "age"})
		if err != nil || h.Min != int64(25) || h.Max != int64(50) || len(h.Base.Counts) != 26 || h.Base.Counts[0] != 1 || h.Base.Counts[25] != 1 || h.Base.Total != 4 || h.BinEdges[26] != int64(51) {
			t.Fatalf("histogram = %v %s", err, jsonOf(t, h))
		}
		h, err = HistogramDiff(ctx, env, HistogramDiffInput{Model: "ages", Column: "day"})
		if err != nil || jsonOf(t, h.Base.Counts) != `[1,1,0,0,1]` || jsonOf(t, h.Current.Counts) != `[1,0,1,0,1]` || h.Interval != "day" {
			t.Fatalf("date histogram = %v %s", err, jsonOf(t, h))
		}
	})
}
