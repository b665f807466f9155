package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
)

// TestSetBackendKeepsStartupProfile is issue #27 item 7 at the opener
// set_backend's session uses: after the project directory changes, the
// warehouse still comes from the startup project's profiles.yml, so a
// directory's profiles.yml cannot send the server's env_var() credentials
// to the host it names; when the operator allows reading it
// (--set-backend-profiles), errors still never show a value rendered from
// env_var().
func TestSetBackendKeepsStartupProfile(t *testing.T) {
	ctx := context.Background()
	startup, other := t.TempDir(), t.TempDir()
	db := filepath.Join(startup, "acme.duckdb")
	w, err := duckdb.OpenWritable(ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	write := func(dir, name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(startup, "dbt_project.yml", "name: acme\nprofile: acme\n")
	write(startup, "profiles.yml", "acme:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: acme.duckdb\n")
	write(other, "dbt_project.yml", "name: other\nprofile: other\n")
	write(other, "profiles.yml", "other:\n  target: dev\n  outputs:\n    dev:\n      type: postgres\n      host: \"{{ env_var('RIPPLE_TEST_LEAK_HOST') }}\"\n      port: 1\n      user: u\n      password: \"{{ env_var('RIPPLE_TEST_LEAK_PASSWORD') }}\"\n      dbname: d\n      schema: s\n")
	const host = "leaked-server-value.invalid"
	t.Setenv("RIPPLE_TEST_LEAK_HOST", host)
	t.Setenv("RIPPLE_TEST_LEAK_PASSWORD", "server-password-value")
	t.Setenv("DBT_PROFILES_DIR", "")
	moved := &dbt.Project{Paths: dbt.Paths{ProjectDir: other}}

	g := &Globals{ProjectDir: startup}
	conn, err := g.warehouseOpener()(ctx, moved)
	if err != nil {
		t.Fatalf("opening after set_backend moved to another directory: %v; want the startup profile's DuckDB", err)
	}
	if d := conn.Dialect(); d != "duckdb" {
		t.Errorf("dialect %q; want the startup profile's duckdb", d)
	}
	conn.Close()

	g = &Globals{ProjectDir: startup, ProfilesFollowBackend: true}
	_, err = g.warehouseOpener()(ctx, moved)
	if err == nil {
		t.Fatal("connected to a host that does not exist")
	}
	if msg := err.Error(); strings.Contains(msg, host) || strings.Contains(msg, "server-password-value") || !strings.Contains(msg, "<env_var RIPPLE_TEST_LEAK_HOST>") {
		t.Errorf("error %q; want the host shown as <env_var RIPPLE_TEST_LEAK_HOST>, never its value", msg)
	}
}
