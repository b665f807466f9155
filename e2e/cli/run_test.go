package cli_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The hand-written CI commands: ripple run and ripple check-base.

func TestRun(t *testing.T) {
	t.Parallel()
	needSuite(t)
	dir := t.TempDir()
	state, summary, config := filepath.Join(dir, "state.json"), filepath.Join(dir, "summary.md"), filepath.Join(dir, "ripple.yml")
	r := execRipple(t, "--project-dir", suite.demoDir, "--duckdb", suite.dbPath, "--state-file", state,
		"run", "--config", config, "--summary", summary, "--json")
	// The default presets find differences (customer_segments added and
	// customer_orders_legacy removed; customers gains full_name), and
	// --fail-on-mismatch is on by default.
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (mismatches):\n%s", r.code, r)
	}
	out := decodeOnly(t, r)
	for k, w := range map[string]int64{"passed": 0, "mismatched": 2, "failed": 0, "exit_code": 1} {
		if got := integer(t, out, k); got != w {
			t.Errorf("%s = %d, want %d", k, got, w)
		}
	}
	var types []string
	for _, c := range get(t, out, "checks").([]any) {
		types = append(types, str(t, c, "type"))
		if str(t, c, "status") != "Finished" || get(t, c, "mismatched") != true || str(t, c, "run_id") == "" {
			t.Errorf("check %v", c)
		}
	}
	if !reflect.DeepEqual(types, []string{"row_count_diff", "schema_diff"}) {
		t.Errorf("checks %v", types)
	}
	for _, f := range []string{state, config} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("run did not write %s: %v", f, err)
		}
	}
	md, err := os.ReadFile(summary)
	if err != nil || !strings.Contains(string(md), "# Ripple summary") || !strings.Contains(string(md), "| customers | modified | 2000 → 2000 |") {
		t.Errorf("summary file (%v):\n%s", err, md)
	}
	// The demo directory is left alone.
	if _, err := os.Stat(filepath.Join(suite.demoDir, "ripple.yml")); !os.IsNotExist(err) {
		t.Errorf("run wrote ripple.yml into the project though --config points elsewhere")
	}
}

func TestCheckBase(t *testing.T) {
	t.Parallel()
	needSuite(t)
	fresh := execRipple(t, "--project-dir", suite.demoDir, "check-base", "--json")
	if fresh.code != 0 || str(t, decodeOnly(t, fresh), "status") != "fresh" {
		t.Errorf("fresh demo:\n%s", fresh)
	}
	stale := execRipple(t, "--project-dir", suite.demoDir, "check-base", "--max-age", "1ns", "--json")
	if stale.code != 1 || str(t, decodeOnly(t, stale), "status") != "stale_time" {
		t.Errorf("--max-age 1ns:\n%s", stale)
	}
	missing := execRipple(t, "--project-dir", t.TempDir(), "check-base", "--json")
	if missing.code != 2 {
		t.Fatalf("no artifacts: exit %d, want 2\n%s", missing.code, missing)
	}
	m := decodeOnly(t, missing)
	if str(t, m, "status") != "missing" || !strings.Contains(str(t, m, "reason"), "dbt docs generate") {
		t.Errorf("missing base: %v", m)
	}
}
