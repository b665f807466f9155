package trino_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/trino"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest/fakeserver"
)

// target is the dbt-trino profile pointing at the fake coordinator.
func target(t *testing.T, f *fakeserver.Trino) profiles.Target {
	u, _ := url.Parse(f.URL)
	port, _ := strconv.Atoi(u.Port())
	return profiles.Target{Type: "trino", Host: u.Hostname(), Port: port, User: "analyst", Database: "memory", Schema: "main",
		Extra: map[string]any{"method": "none", "http_scheme": "http", "session_properties": map[string]any{"query_max_run_time": "5m"}},
		File:  "profiles.yml", Profile: "p", Name: "trino"}
}

// The shared suite through the real trino-go-client against the fake
// coordinator (nextUri paging, DELETE on cancel).
func TestSuiteAgainstFake(t *testing.T) {
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		e := fakeserver.NewEngine(t, "memory")
		f := fakeserver.NewTrino(e)
		t.Cleanup(func() { f.Close(); e.Close() })
		return warehousetest.Target{
			Schema:    "main",
			SlowQuery: "SELECT SUM(a.range * b.range) FROM range(10000000) a, range(10000000) b",
			Setup:     e.Setup,
			Killed:    e.Killed,
			Skip: map[string]string{
				"Expressions": "the fake's DuckDB has no TO_UTF8/APPROX_PERCENTILE; Trino's spelling is pinned by internal/dialect and internal/diff goldens and runs in TestLive",
			},
			Open: func(t *testing.T) warehouse.Conn {
				c, err := trino.Connect(context.Background(), target(t, f), warehouse.Settings{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
}

// The profile's user and session properties reach the coordinator.
func TestProfileReachesServer(t *testing.T) {
	e := fakeserver.NewEngine(t, "memory")
	f := fakeserver.NewTrino(e)
	defer f.Close()
	defer e.Close()
	c, err := trino.Connect(context.Background(), target(t, f), warehouse.Settings{QueryTimeout: 90e9})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(f.Users) == 0 || f.Users[0] != "analyst" {
		t.Errorf("users = %v", f.Users)
	}
	if s := strings.Join(f.Sessions, ";"); !strings.Contains(s, "query_max_run_time=5m") || !strings.Contains(s, "query_max_execution_time=90s") {
		t.Errorf("session properties sent = %q", s)
	}
}

func TestConfig(t *testing.T) {
	for _, tt := range []struct {
		extra   map[string]any
		wantErr string
	}{
		{map[string]any{"method": "kerberos"}, "not supported by Ripple yet"},
		{map[string]any{"method": "magic"}, "unknown trino method"},
		{map[string]any{"session_properties": "x"}, "session_properties must be a mapping"},
	} {
		_, err := trino.Config(profiles.Target{Type: "trino", Host: "h", Extra: tt.extra, File: "profiles.yml"}, warehouse.Settings{})
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%v: %v, want %q", tt.extra, err, tt.wantErr)
		}
	}
}

// TestLive runs the suite against a real Trino when
// RIPPLE_TEST_TRINO_HOST (and _PORT, _USER, _CATALOG, _SCHEMA; the schema
// must be writable for the fixture) is set; otherwise it is skipped.
func TestLive(t *testing.T) {
	host := warehousetest.LiveEnv(t, "RIPPLE_TEST_TRINO_HOST")
	port, _ := strconv.Atoi(warehousetest.Getenv("RIPPLE_TEST_TRINO_PORT", "8080"))
	tg := profiles.Target{Type: "trino", Host: host, Port: port, User: warehousetest.Getenv("RIPPLE_TEST_TRINO_USER", "ripple"),
		Database: warehousetest.Getenv("RIPPLE_TEST_TRINO_CATALOG", "memory"), Schema: warehousetest.Getenv("RIPPLE_TEST_TRINO_SCHEMA", "default"),
		Extra: map[string]any{"http_scheme": warehousetest.Getenv("RIPPLE_TEST_TRINO_HTTP_SCHEME", "http")}}
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		return warehousetest.Target{
			Dialect:   "trino",
			Schema:    tg.Schema,
			SlowQuery: "SELECT count(*) FROM UNNEST(sequence(1, 100000)) a(x) CROSS JOIN UNNEST(sequence(1, 100000)) b(y) CROSS JOIN UNNEST(sequence(1, 1000)) c(z)",
			Setup:     warehousetest.SetupThrough(func(ctx context.Context) (warehouse.Conn, error) { return trino.Connect(ctx, tg, warehouse.Settings{}) }),
			Open: func(t *testing.T) warehouse.Conn {
				c, err := trino.Connect(context.Background(), tg, warehouse.Settings{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
}
