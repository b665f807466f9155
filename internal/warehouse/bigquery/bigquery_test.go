package bigquery_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/bigquery"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
)

func TestConfig(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		tg      profiles.Target
		wantErr string
	}{
		{profiles.Target{Type: "bigquery"}, "needs project"},
		{profiles.Target{Type: "bigquery", Database: "p", Extra: map[string]any{"method": "service-account"}}, "needs keyfile"},
		{profiles.Target{Type: "bigquery", Database: "p", Extra: map[string]any{"method": "service-account-json"}}, "needs keyfile_json"},
		{profiles.Target{Type: "bigquery", Database: "p", Extra: map[string]any{"method": "magic"}}, "unknown bigquery method"},
		{profiles.Target{Type: "bigquery", Database: "p", Extra: map[string]any{"maximum_bytes_billed": "lots"}}, "maximum_bytes_billed must be a whole number"},
	} {
		tt.tg.File = "profiles.yml"
		_, err := bigquery.Config(ctx, tt.tg, warehouse.Settings{})
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%v: %v, want %q", tt.tg.Extra, err, tt.wantErr)
		}
	}
	o, err := bigquery.Config(ctx, profiles.Target{Type: "bigquery", Database: "data", Schema: "ds", Threads: 6,
		Extra: map[string]any{"execution_project": "billing", "location": "EU", "maximum_bytes_billed": 1000, "job_execution_timeout_seconds": 30}}, warehouse.Settings{})
	if err != nil || o.Project != "data" || o.ExecutionProject != "billing" || o.Dataset != "ds" || o.Location != "EU" ||
		o.MaximumBytesBilled != 1000 || o.JobTimeout.Seconds() != 30 || o.Settings.MaxConns != 6 {
		t.Errorf("%+v %v", o, err)
	}
}

// TestLive runs the suite against BigQuery when RIPPLE_TEST_BIGQUERY_PROJECT
// and _DATASET (writable, for the fixture) are set, with application
// default credentials.
func TestLive(t *testing.T) {
	project := warehousetest.LiveEnv(t, "RIPPLE_TEST_BIGQUERY_PROJECT")
	tg := profiles.Target{Type: "bigquery", Database: project, Schema: warehousetest.Getenv("RIPPLE_TEST_BIGQUERY_DATASET", "ripple_test")}
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		return warehousetest.Target{
			Schema:    tg.Schema,
			SlowQuery: "SELECT COUNT(*) FROM UNNEST(GENERATE_ARRAY(1, 1000000)) a, UNNEST(GENERATE_ARRAY(1, 1000000)) b",
			Setup: warehousetest.SetupThrough(func(ctx context.Context) (warehouse.Conn, error) {
				return bigquery.Connect(ctx, tg, warehouse.Settings{})
			}),
			Open: func(t *testing.T) warehouse.Conn {
				c, err := bigquery.Connect(context.Background(), tg, warehouse.Settings{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
}
