package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Base freshness: one rule (dbt.CheckBaseFreshness) behind `ripple
// check-base` and get_server_info's base_status, durations for people, and
// no nonsense limits.

// projectBuiltAt is a copy of the demo project whose base manifest says it
// was generated at the given time.
func projectBuiltAt(t *testing.T, generatedAt time.Time) string {
	t.Helper()
	project := copyProject(t)
	path := filepath.Join(project, "target-base", "manifest.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	meta, ok := m["metadata"].(map[string]any)
	if !ok || meta["generated_at"] == nil {
		t.Fatalf("the demo's base manifest has no metadata.generated_at")
	}
	meta["generated_at"] = generatedAt.UTC().Format("2006-01-02T15:04:05.000000Z")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return project
}

// TestCheckBaseHumanDuration: an old base build is reported in days and
// hours, not as Go's 13137h54m0s.
func TestCheckBaseHumanDuration(t *testing.T) {
	t.Parallel()
	project := projectBuiltAt(t, time.Now().Add(-(13137*time.Hour + 54*time.Minute)))
	r := execRipple(t, "--project-dir", project, "check-base")
	want := "stale_time: the base artifacts were generated 547 days 9 hours ago (limit 2 days); rebuild them on main with `"
	if r.code != 1 || !strings.HasPrefix(string(r.stdout), want) {
		t.Errorf("exit %d, want 1 and %q…\n%s", r.code, want, r)
	}
	if strings.Contains(string(r.stdout), "h54m") || strings.Contains(string(r.stdout), "48h0m0s") {
		t.Errorf("a Go duration reached the user:\n%s", r)
	}
	j := execRipple(t, "--project-dir", project, "check-base", "--json")
	out := decodeOnly(t, j)
	if j.code != 1 || str(t, out, "status") != "stale_time" || float(t, out, "age_hours") != 13137.9 || integer(t, out, "exit_code") != 1 {
		t.Errorf("--json: exit %d, want 1, stale_time, age_hours 13137.9\n%s", j.code, j)
	}
}

// TestCheckBaseNegativeMaxAge: a negative limit is a usage error (exit 2),
// never "fresh"; serve's --max-age (the same rule) refuses it too.
func TestCheckBaseNegativeMaxAge(t *testing.T) {
	t.Parallel()
	needSuite(t)
	for _, args := range [][]string{
		{"check-base", "--max-age", "-1h"},
		{"check-base", "--max-age", "-1h", "--json"},
		{"serve", "--max-age", "-1h", "--port", "0"},
	} {
		r := execRipple(t, append([]string{"--project-dir", suite.demoDir}, args...)...)
		if r.code != 2 || len(r.stdout) != 0 || !strings.Contains(string(r.stderr), "--max-age: the age limit must not be negative (got -1 hour): pass e.g. 48h, or 0 for no limit") {
			t.Errorf("exit %d, want 2, no answer and the reason on stderr:\n%s", r.code, r)
		}
		if strings.Contains(string(r.stdout), "fresh") {
			t.Errorf("a negative age limit answered fresh:\n%s", r)
		}
	}
}

// TestFreshnessAgreement: `ripple check-base` and the MCP tool
// get_server_info judge the same artifacts the same way — same status, same
// reason — whether the base is fresh, too old, older than the base
// branch's newest commit, or unreadable. The one deliberate difference:
// with no base build at all, get_server_info says single_env (Recce's
// status for a project with one build) where check-base says missing.
func TestFreshnessAgreement(t *testing.T) {
	t.Parallel()
	needSuite(t)
	now := time.Now()
	cases := []struct {
		name       string
		project    func(t *testing.T) string
		checkBase  string
		exit       int
		serverInfo string
		reason     string // a key phrase both reasons hold
	}{
		{"fresh", func(t *testing.T) string { return projectBuiltAt(t, time.Now().Add(-time.Hour)) },
			"fresh", 0, "fresh", "generated 1 hour ago, within the age limit of 2 days"},
		{"too old", func(t *testing.T) string { return projectBuiltAt(t, now.Add(-72*time.Hour)) },
			"stale_time", 1, "stale_time", "generated 3 days ago (limit 2 days)"},
		{"older than main", func(t *testing.T) string {
			p := projectBuiltAt(t, now.Add(-2*time.Hour))
			gitCommit(t, p, now.Add(-time.Hour))
			return p
		}, "stale_sha", 1, "stale_sha", "main has commit "},
		{"unreadable", func(t *testing.T) string {
			p := copyProject(t)
			if err := os.WriteFile(filepath.Join(p, "target-base", "manifest.json"), []byte("{"), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, "missing", 2, "missing", "target-base"},
		{"no base build", func(t *testing.T) string {
			p := copyProject(t)
			if err := os.RemoveAll(filepath.Join(p, "target-base")); err != nil {
				t.Fatal(err)
			}
			return p
		}, "missing", 2, "single_env", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			project := c.project(t)
			r := execRipple(t, "--project-dir", project, "check-base", "--json")
			cb := decodeOnly(t, r)
			if r.code != c.exit || str(t, cb, "status") != c.checkBase {
				t.Fatalf("check-base: exit %d, want %d and %s\n%s", r.code, c.exit, c.checkBase, r)
			}
			cs := mcpSession(t, "--project-dir", project, "--mode", "preview")
			info, msg, isErr := callTool(t, cs, "get_server_info", map[string]any{})
			if isErr {
				t.Fatalf("get_server_info: %s", msg)
			}
			if info["base_status"] != c.serverInfo {
				t.Errorf("get_server_info base_status %v, check-base %s (want %s)\n%v", info["base_status"], c.checkBase, c.serverInfo, info)
			}
			if c.serverInfo != c.checkBase {
				return
			}
			if info["base_status_reason"] != str(t, cb, "reason") {
				t.Errorf("the reasons differ:\nget_server_info: %v\ncheck-base:      %s", info["base_status_reason"], str(t, cb, "reason"))
			}
			if !strings.Contains(str(t, cb, "reason"), c.reason) {
				t.Errorf("reason %q lacks %q", str(t, cb, "reason"), c.reason)
			}
		})
	}
}

// gitCommit makes dir a git repository whose branch main has one commit
// made at when.
func gitCommit(t *testing.T, dir string, when time.Time) {
	t.Helper()
	stamp := when.Format(time.RFC3339)
	env := []string{"GIT_AUTHOR_DATE=" + stamp, "GIT_COMMITTER_DATE=" + stamp,
		"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com", "GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
	for _, argv := range [][]string{
		{"git", "init", "-q", "-b", "main"},
		{"git", "add", "dbt_project.yml"},
		{"git", "commit", "-q", "-m", "the base branch moved on"},
	} {
		if r := runIn(t, dir, env, argv...); r.code != 0 {
			t.Fatalf("%s", r)
		}
	}
}
