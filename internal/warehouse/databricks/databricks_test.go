package databricks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/databricks"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest/fakeserver"
)

func target(f *fakeserver.Databricks, extra map[string]any) profiles.Target {
	e := map[string]any{"http_path": "/sql/1.0/warehouses/abc123def", "token": f.Token}
	for k, v := range extra {
		e[k] = v
	}
	return profiles.Target{Type: "databricks", Host: f.URL, Database: "main", Schema: "main", Extra: e,
		File: "profiles.yml", Profile: "p", Name: "dbx"}
}

// The shared suite through the adapter's HTTP client against the fake
// Statement Execution API (polling, chunks, cancel).
func TestSuiteAgainstFake(t *testing.T) {
	for _, auth := range []string{"token", "oauth-m2m"} {
		t.Run(auth, func(t *testing.T) {
			warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
				e := fakeserver.NewEngine(t, "main")
				f := fakeserver.NewDatabricks(e)
				f.ChunkRows = 700
				t.Cleanup(f.Close)
				extra := map[string]any{}
				if auth == "oauth-m2m" {
					extra = map[string]any{"token": nil, "client_id": f.ClientID, "client_secret": f.ClientSecret, "auth_type": "oauth"}
				}
				return warehousetest.Target{
					Schema:    "main",
					SlowQuery: "SELECT SUM(a.range * b.range) FROM range(10000000) a, range(10000000) b",
					Setup:     e.Setup,
					Killed:    e.Killed,
					Open: func(t *testing.T) warehouse.Conn {
						c, err := databricks.Connect(context.Background(), target(f, extra), warehouse.Settings{ReadOnly: true})
						if err != nil {
							t.Fatal(err)
						}
						return c
					},
				}
			})
		})
	}
}

// The request carries the warehouse id from http_path, the catalog and
// schema, and a row limit one past the cap.
func TestStatementRequest(t *testing.T) {
	e := fakeserver.NewEngine(t, "main")
	f := fakeserver.NewDatabricks(e)
	defer f.Close()
	c, err := databricks.Connect(context.Background(), target(f, nil), warehouse.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Query(context.Background(), "SELECT 42", warehouse.QueryOptions{Limit: 10}); err != nil {
		t.Fatal(err)
	}
	b := f.Bodies[len(f.Bodies)-1]
	if b["warehouse_id"] != "abc123def" || b["catalog"] != "main" || b["schema"] != "main" || b["row_limit"] != float64(11) || b["format"] != "JSON_ARRAY" {
		t.Errorf("request = %v", b)
	}
	tg := target(f, map[string]any{"token": "wrong-token"})
	_, err = databricks.Connect(context.Background(), tg, warehouse.Settings{})
	if warehouse.Classify(err) != warehouse.ClassAuth || strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("bad token: %v (class %s)", err, warehouse.Classify(err))
	}
}

func TestConfig(t *testing.T) {
	for _, tt := range []struct {
		extra   map[string]any
		wantErr string
	}{
		{map[string]any{"http_path": "/sql/protocolv1/o/123/0123-abc"}, "must name a SQL warehouse"},
		{map[string]any{"http_path": "/sql/1.0/warehouses/x1", "token": nil}, "needs token, or client_id and client_secret"},
		{map[string]any{"http_path": "/sql/1.0/warehouses/x1", "token": "t", "connect_timeout": "soon"}, "connect_timeout must be a number of seconds"},
	} {
		_, err := databricks.Config(profiles.Target{Type: "databricks", Host: "h", Extra: tt.extra, File: "profiles.yml"}, warehouse.Settings{})
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%v: %v, want %q", tt.extra, err, tt.wantErr)
		}
	}
	o, err := databricks.Config(profiles.Target{Type: "databricks", Host: "dbc-1.cloud.databricks.com", Extra: map[string]any{"http_path": "/sql/1.0/warehouses/ab12", "token": "t"}}, warehouse.Settings{})
	if err != nil || o.BaseURL != "https://dbc-1.cloud.databricks.com" || o.WarehouseID != "ab12" {
		t.Errorf("%+v %v", o, err)
	}
}

// FuzzDecodeRow: any row the API could send decodes or fails cleanly.
func FuzzDecodeRow(f *testing.F) {
	f.Add("12.50", "1", "2024-01-31T11:45:00Z", "true")
	f.Add("-0.05", "9007199254740993", "2024-01-31", "false")
	f.Add("NaN", "x", "2024-13-45", "maybe")
	f.Fuzz(func(t *testing.T, a, b, c, d string) {
		kinds := []warehouse.Kind{warehouse.KindDecimal, warehouse.KindInteger, warehouse.KindTimestampTZ, warehouse.KindBoolean, warehouse.KindFloat, warehouse.KindString}
		vals, err := databricks.DecodeRow([]*string{&a, &b, &c, &d, &a, nil}, kinds)
		if err == nil && len(vals) != len(kinds) {
			t.Fatalf("decoded %d values", len(vals))
		}
	})
}

// TestLive runs the suite against a real SQL warehouse when
// RIPPLE_TEST_DATABRICKS_HOST, _HTTP_PATH and _TOKEN (and _CATALOG,
// _SCHEMA: a schema the token may create tables in) are set.
func TestLive(t *testing.T) {
	host := warehousetest.LiveEnv(t, "RIPPLE_TEST_DATABRICKS_HOST")
	tg := profiles.Target{Type: "databricks", Host: host, Database: warehousetest.Getenv("RIPPLE_TEST_DATABRICKS_CATALOG", "main"),
		Schema: warehousetest.Getenv("RIPPLE_TEST_DATABRICKS_SCHEMA", "default"),
		Extra:  map[string]any{"http_path": warehousetest.Getenv("RIPPLE_TEST_DATABRICKS_HTTP_PATH", ""), "token": warehousetest.Getenv("RIPPLE_TEST_DATABRICKS_TOKEN", "")}}
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		return warehousetest.Target{
			Dialect:   "databricks",
			Schema:    tg.Schema,
			SlowQuery: "SELECT COUNT(*) FROM range(100000000000) a",
			Setup: warehousetest.SetupThrough(func(ctx context.Context) (warehouse.Conn, error) {
				return databricks.Connect(ctx, tg, warehouse.Settings{})
			}),
			Open: func(t *testing.T) warehouse.Conn {
				c, err := databricks.Connect(context.Background(), tg, warehouse.Settings{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
}
