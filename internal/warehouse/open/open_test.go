package open

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
)

func TestOpenDuckDBFromProfile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, err := duckdb.OpenWritable(ctx, filepath.Join(dir, "jaffle_shop.duckdb"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Exec(ctx, "CREATE TABLE orders AS SELECT 42 AS id"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	os.WriteFile(filepath.Join(dir, "dbt_project.yml"), []byte("name: jaffle_shop\nprofile: jaffle_shop\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "profiles.yml"), []byte("jaffle_shop:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: jaffle_shop.duckdb\n"), 0o644)
	tg, err := profiles.Load(profiles.LoadOptions{ProjectDir: dir, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(ctx, tg, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Query(ctx, "SELECT id FROM jaffle_shop.main.orders", warehouse.QueryOptions{})
	if err != nil || res.Rows[0][0] != int64(42) {
		t.Fatalf("%v %v", res, err)
	}
	if c.Dialect() != "duckdb" {
		t.Errorf("Dialect = %s", c.Dialect())
	}
	_, err = Open(ctx, profiles.Target{Type: "duckdb", Path: filepath.Join(dir, "missing.duckdb"), File: "profiles.yml", Profile: "p", Name: "dev"}, OpenOptions{ReadOnly: true})
	if err == nil || !strings.Contains(err.Error(), `profiles.yml (profile "p", target "dev")`) {
		t.Errorf("error must name file/profile/target: %v", err)
	}
}

func TestOpenPostgresFromProfile(t *testing.T) {
	dsn := warehousetest.RequireEnv(t, "RIPPLE_TEST_POSTGRES_DSN")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	port, _ := strconv.Atoi(u.Port())
	tg := profiles.Target{Type: "postgres", Host: u.Hostname(), Port: port, User: u.User.Username(), Password: pw,
		Database: strings.TrimPrefix(u.Path, "/"), Schema: "public", File: "profiles.yml", Profile: "p", Name: "ci"}
	ctx := context.Background()
	c, err := Open(ctx, tg, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Query(ctx, "SELECT current_schema() AS s", warehouse.QueryOptions{})
	if err != nil || res.Rows[0][0] != "public" {
		t.Fatalf("%v %v", res, err)
	}
	const secret = "Wr0ng-S3cret-pw"
	tg.Password = secret
	_, err = Open(ctx, tg, OpenOptions{ReadOnly: true})
	if err == nil {
		t.Fatal("wrong password accepted")
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error shows the password: %v", err)
	}
	if !strings.Contains(err.Error(), `target "ci"`) {
		t.Errorf("error must name the target: %v", err)
	}
}

// Spark (thrift/http/odbc) has a record, so its SQL is golden-tested, but
// no driver: the error says so and lists what is wired.
func TestNoDriverWired(t *testing.T) {
	_, err := Open(context.Background(), profiles.Target{Type: "spark", Password: "pw-secret", File: "profiles.yml", Profile: "p", Name: "prod"}, OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "no driver wired for spark in this build") || !strings.Contains(err.Error(), "bigquery, databricks, duckdb, postgres, redshift, snowflake, trino") ||
		!strings.Contains(err.Error(), `target "prod"`) || strings.Contains(err.Error(), "pw-secret") {
		t.Errorf("spark: %v", err)
	}
}

// Every record with an adapter resolves its aliases to it.
func TestAliasesReachAdapters(t *testing.T) {
	for _, typ := range []string{"postgresql", "starburst"} {
		_, err := Open(context.Background(), profiles.Target{Type: typ, Host: "127.0.0.1", Port: 1, File: "profiles.yml", Profile: "p", Name: "x"}, OpenOptions{})
		if err == nil || strings.Contains(err.Error(), "no driver") {
			t.Errorf("%s: %v", typ, err)
		}
	}
}

// The protocol fakes are test fixtures: the binary never links them.
func TestFakesNotInBinary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/ripple-data/ripple/cmd/ripple").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	if strings.Contains(string(out), "warehousetest") {
		t.Error("cmd/ripple links internal/warehouse/warehousetest (a test fixture)")
	}
}
