package snowflake_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/snowflake"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest/fakeserver"
)

const password = "fake-Sn0w-pass"

func target(f *fakeserver.Snowflake, extra map[string]any) profiles.Target {
	u, _ := url.Parse(f.URL)
	port, _ := strconv.Atoi(u.Port())
	e := map[string]any{"account": "xy12345", "warehouse": "transforming", "role": "reporter", "protocol": "http", "query_tag": "ripple-ci"}
	for k, v := range extra {
		e[k] = v
	}
	return profiles.Target{Type: "snowflake", Host: u.Hostname(), Port: port, User: "RIPPLE", Password: password,
		Database: "analytics", Schema: "main", Extra: e, File: "profiles.yml", Profile: "p", Name: "snow"}
}

// The shared suite through gosnowflake against the fake REST service
// (login, query-request JSON results, in-progress polling, abort-request).
func TestSuiteAgainstFake(t *testing.T) {
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		e := fakeserver.NewEngine(t, "analytics")
		f := fakeserver.NewSnowflake(e, password)
		t.Cleanup(f.Close)
		return warehousetest.Target{
			Schema:    "main",
			SlowQuery: "SELECT SUM(a.range * b.range) FROM range(10000000) a, range(10000000) b",
			Setup:     e.Setup,
			Killed:    e.Killed,
			// Snowflake answers a missing table and a missing grant with one
			// code (002003), which the priority rule makes permission_denied.
			MissingTableClass: warehouse.ClassPermissionDenied,
			Open: func(t *testing.T) warehouse.Conn {
				c, err := snowflake.Connect(context.Background(), target(f, nil), warehouse.Settings{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
}

// Profile fields reach the service; a wrong password is auth_failed and
// never printed; key pair authentication signs a JWT.
func TestLoginAndProfile(t *testing.T) {
	e := fakeserver.NewEngine(t, "analytics")
	f := fakeserver.NewSnowflake(e, password)
	defer f.Close()
	ctx := context.Background()
	c, err := snowflake.Connect(ctx, target(f, nil), warehouse.Settings{QueryTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Query(ctx, "SELECT 1", warehouse.QueryOptions{}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	login := f.Logins[0]
	if login["LOGIN_NAME"] != "RIPPLE" || login["ACCOUNT_NAME"] != "xy12345" {
		t.Errorf("login = %v", login)
	}
	sp, _ := login["SESSION_PARAMETERS"].(map[string]any)
	if fold(sp)["QUERY_TAG"] != "ripple-ci" || fold(sp)["STATEMENT_TIMEOUT_IN_SECONDS"] != "120" {
		t.Errorf("session parameters = %v", sp)
	}

	tg := target(f, nil)
	tg.Password = "Wr0ng-pass-xyz"
	_, err = snowflake.Connect(ctx, tg, warehouse.Settings{})
	if warehouse.Classify(err) != warehouse.ClassAuth || strings.Contains(err.Error(), "Wr0ng-pass-xyz") {
		t.Errorf("wrong password: %v (class %s)", err, warehouse.Classify(err))
	}

	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	path := filepath.Join(t.TempDir(), "key.p8")
	os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	tg = target(f, map[string]any{"authenticator": "jwt", "private_key_path": path})
	tg.Password = ""
	c, err = snowflake.Connect(ctx, tg, warehouse.Settings{})
	if err != nil {
		t.Fatalf("key pair: %v", err)
	}
	c.Close()
	if tok, _ := f.Logins[len(f.Logins)-1]["TOKEN"].(string); strings.Count(tok, ".") != 2 {
		t.Errorf("key pair login sent no JWT: %v", f.Logins[len(f.Logins)-1])
	}
}

func fold(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[strings.ToUpper(k)] = v
	}
	return out
}

func TestConfig(t *testing.T) {
	for _, tt := range []struct {
		extra   map[string]any
		wantErr string
	}{
		{map[string]any{"account": "a", "authenticator": "oauth"}, "needs token"},
		{map[string]any{"account": "a", "authenticator": "jwt"}, "needs private_key_path or private_key"},
		{map[string]any{"account": "a", "authenticator": "jwt", "private_key": "bm90IGEga2V5"}, "not a PEM or DER RSA private key"},
		{map[string]any{"account": "a", "authenticator": "https://acme.okta.com"}, "Okta authenticator URLs are not supported"},
		{map[string]any{}, "needs account"},
		{map[string]any{"account": "a", "connect_timeout": "x"}, "connect_timeout must be a number of seconds"},
	} {
		_, err := snowflake.Config(profiles.Target{Type: "snowflake", Extra: tt.extra, File: "profiles.yml"}, warehouse.Settings{})
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%v: %v, want %q", tt.extra, err, tt.wantErr)
		}
	}
}

// TestLive runs the suite against a real account when
// RIPPLE_TEST_SNOWFLAKE_ACCOUNT, _USER, _PASSWORD, _WAREHOUSE, _DATABASE
// and _SCHEMA (a schema the user may create tables in; _ROLE optional)
// are set.
func TestLive(t *testing.T) {
	account := warehousetest.LiveEnv(t, "RIPPLE_TEST_SNOWFLAKE_ACCOUNT")
	tg := profiles.Target{Type: "snowflake", User: warehousetest.Getenv("RIPPLE_TEST_SNOWFLAKE_USER", ""),
		Password: warehousetest.Getenv("RIPPLE_TEST_SNOWFLAKE_PASSWORD", ""), Database: warehousetest.Getenv("RIPPLE_TEST_SNOWFLAKE_DATABASE", ""),
		Schema: warehousetest.Getenv("RIPPLE_TEST_SNOWFLAKE_SCHEMA", "PUBLIC"),
		Extra: map[string]any{"account": account, "warehouse": warehousetest.Getenv("RIPPLE_TEST_SNOWFLAKE_WAREHOUSE", ""),
			"role": warehousetest.Getenv("RIPPLE_TEST_SNOWFLAKE_ROLE", "")}}
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		return warehousetest.Target{
			Dialect:   "snowflake",
			Schema:    tg.Schema,
			SlowQuery: "SELECT COUNT(*) FROM TABLE(GENERATOR(ROWCOUNT => 100000000000))",
			Setup: warehousetest.SetupThrough(func(ctx context.Context) (warehouse.Conn, error) {
				return snowflake.Connect(ctx, tg, warehouse.Settings{})
			}),
			Open: func(t *testing.T) warehouse.Conn {
				c, err := snowflake.Connect(context.Background(), tg, warehouse.Settings{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
}
