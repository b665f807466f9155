package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/ops"
)

// dataOnly changes the rows of one table and no column anywhere.
func dataOnly(p *dbtfixture.Project) {
	p.Table("customers", []string{"id INTEGER", "name VARCHAR"},
		dbtfixture.Rows{{1, "Alice"}, {2, "Bob"}},
		dbtfixture.Rows{{1, "Alice"}, {2, "Bob"}, {3, "Carol"}}).Tests(dbtfixture.Unique("id"))
	p.Table("unrelated", []string{"x INTEGER"}, dbtfixture.Rows{{1}}, dbtfixture.Rows{{1}})
}

// noChange has identical builds.
func noChange(p *dbtfixture.Project) {
	p.Table("customers", []string{"id INTEGER", "name VARCHAR"},
		dbtfixture.Rows{{1, "Alice"}, {2, "Bob"}}, dbtfixture.Rows{{1, "Alice"}, {2, "Bob"}})
	v := "select id from {{ ref('customers') }}"
	p.Model("customer_ids", dbtfixture.View, v, v)
}

type project struct {
	built *dbtfixture.Built
	state string
}

func build(t *testing.T, scenario func(*dbtfixture.Project)) *project {
	t.Helper()
	p := dbtfixture.New(t)
	scenario(p)
	b := p.MustBuild(context.Background())
	return &project{built: b, state: filepath.Join(t.TempDir(), "ripple_state.json")}
}

type result struct {
	code     int
	out, err string
}

// ripple runs the CLI in-process on the project.
func (p *project) ripple(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	all := append([]string{args[0], "--project-dir", p.built.Dir, "--duckdb", p.built.DBPath, "--state-file", p.state}, args[1:]...)
	code := Run(context.Background(), all, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return result{code: code, out: out.String(), err: errOut.String()}
}

func decodeReport(t *testing.T, r result) *RunReport {
	t.Helper()
	var rep RunReport
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("stdout is not a run report (%v):\n%s\nstderr:\n%s", err, r.out, r.err)
	}
	return &rep
}

func reportCheck(t *testing.T, rep *RunReport, name string) RunReportCheck {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, rep.Checks)
	return RunReportCheck{}
}

func loadState(t *testing.T, path string) *checks.State {
	t.Helper()
	st, err := checks.NewStateFile(path).Load(context.Background())
	if err != nil {
		t.Fatalf("state file: %v", err)
	}
	return st
}

func TestRunCreatesDefaultsAndFailsOnMismatch(t *testing.T) {
	p := build(t, dataOnly)
	summary := filepath.Join(t.TempDir(), "summary.md")
	cfg := filepath.Join(p.built.Dir, "ripple.yml")
	if _, err := os.Stat(cfg); !os.IsNotExist(err) {
		t.Fatalf("fixture already has ripple.yml: %v", err)
	}
	r := p.ripple(t, "run", "--json", "--summary", summary)
	if r.code != 1 {
		t.Errorf("exit code = %d, want 1 (a row count changed)\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}
	data, err := os.ReadFile(cfg)
	if err != nil || string(data) != checks.DefaultConfig {
		t.Fatalf("ripple.yml not written with the defaults (%v):\n%s", err, data)
	}
	if !strings.Contains(r.err, "wrote default preset checks to "+cfg+"\n") {
		t.Errorf("stderr must say the defaults were written:\n%s", r.err)
	}
	rep := decodeReport(t, r)
	if rep.ExitCode != 1 || rep.StateFile != p.state || rep.Summary != summary || len(rep.Checks) != 2 {
		t.Errorf("report = %+v", rep)
	}
	rc := reportCheck(t, rep, "Row count diff")
	if rc.Type != "row_count_diff" || rc.Status != "Finished" || rc.RunID == "" || rc.CheckID == "" || rc.Error != "" {
		t.Errorf("row count check = %+v", rc)
	}
	// customers: 2 rows in base, 3 in current.
	if !rc.Mismatched {
		t.Errorf("Row count diff of customers 2 → 3 must be a mismatch: %+v", rc)
	}
	sc := reportCheck(t, rep, "Schema diff")
	if sc.Type != "schema_diff" || sc.Status != "Finished" {
		t.Errorf("schema check = %+v", sc)
	}
	// No column changed anywhere.
	if sc.Mismatched {
		t.Errorf("Schema diff without any column change must not be a mismatch: %+v", sc)
	}
	if rep.Passed != 1 || rep.Mismatched != 1 || rep.Failed != 0 {
		t.Errorf("passed/mismatched/failed = %d/%d/%d, want 1/1/0", rep.Passed, rep.Mismatched, rep.Failed)
	}

	st := loadState(t, p.state)
	if len(st.Checks) != 2 || len(st.Runs) != 2 {
		t.Fatalf("state file: %d checks, %d runs; want 2, 2", len(st.Checks), len(st.Runs))
	}
	for i, name := range []string{"Row count diff", "Schema diff"} {
		c := st.Checks[i]
		if c.Name != name || !c.IsPreset || c.IsChecked || c.LastRunID == "" {
			t.Errorf("stored check %d = %+v", i, c)
		}
	}
	for _, run := range st.Runs {
		if run.Status != checks.StatusFinished || run.TriggeredBy != checks.TriggerUser || run.CheckID == "" {
			t.Errorf("stored run = %s %s %s", run.Type, run.Status, run.TriggeredBy)
		}
	}

	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Ripple summary\n",
		"| customers | modified | 2 → 3 (▲ 50%) | unchanged | confirmed | 1 |\n",
		"| Row count diff | row_count_diff | ⚠️ mismatch |  |\n",
		"| Schema diff | schema_diff | ✅ match |  |\n",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}

	// A second run reuses the preset checks and adds runs.
	r = p.ripple(t, "run", "--fail-on-mismatch=false")
	if r.code != 0 {
		t.Errorf("--fail-on-mismatch=false: exit code %d, want 0\n%s%s", r.code, r.out, r.err)
	}
	if !strings.HasSuffix(r.out, "1 passed, 1 mismatched, 0 failed\n") || !strings.Contains(r.out, "≠ Row count diff") {
		t.Errorf("text report:\n%s", r.out)
	}
	if strings.Contains(r.err, "wrote default preset checks") {
		t.Error("an existing ripple.yml must not be rewritten")
	}
	st = loadState(t, p.state)
	if len(st.Checks) != 2 || len(st.Runs) != 4 {
		t.Errorf("after a second run: %d checks, %d runs; want 2, 4", len(st.Checks), len(st.Runs))
	}
}

func TestRunWithoutChangesPasses(t *testing.T) {
	p := build(t, noChange)
	r := p.ripple(t, "run", "--json")
	rep := decodeReport(t, r)
	if r.code != 0 || rep.Passed != 2 || rep.Mismatched != 0 || rep.Failed != 0 {
		t.Errorf("identical builds: exit %d, report %+v\nstderr:\n%s", r.code, rep, r.err)
	}
}

func TestRunFailedCheckExitsOne(t *testing.T) {
	p := build(t, noChange)
	yml := "checks:\n  - name: Broken\n    type: value_diff\n    params:\n      model: customers\n      primary_key: no_such_column\n"
	if err := os.WriteFile(filepath.Join(p.built.Dir, "ripple.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := p.ripple(t, "run", "--json", "--fail-on-mismatch=false")
	rep := decodeReport(t, r)
	if r.code != 1 || rep.Failed != 1 || len(rep.Checks) != 1 || rep.Checks[0].Status != "Failed" || rep.Checks[0].Error == "" {
		t.Errorf("failing check: exit %d, report %+v", r.code, rep)
	}
}

func TestRunInvalidConfig(t *testing.T) {
	p := build(t, dataOnly)
	yml := "checks:\n" +
		"  - name: Rows\n" +
		"    type: row_count_diff\n" +
		"    params:\n" +
		"      select: customers\n" +
		"  - name: Bad\n" +
		"    type: no_such_diff\n" +
		"    params: {}\n"
	if err := os.WriteFile(filepath.Join(p.built.Dir, "ripple.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := p.ripple(t, "run")
	if r.code != 2 {
		t.Errorf("exit code = %d, want 2\n%s", r.code, r.err)
	}
	want := filepath.Join(p.built.Dir, "ripple.yml") + `:7: checks[1] "Bad" field type: unknown check type "no_such_diff"`
	if !strings.Contains(r.err, want) {
		t.Errorf("stderr must point at the bad entry (%s):\n%s", want, r.err)
	}
	if _, err := os.Stat(p.state); !os.IsNotExist(err) {
		t.Errorf("a configuration error must not write the state file (%v)", err)
	}

	// A bad parameter points at its line too.
	yml = "checks:\n  - name: Values\n    type: value_diff\n    params:\n      model: customers\n"
	if err := os.WriteFile(filepath.Join(p.built.Dir, "ripple.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	r = p.ripple(t, "run")
	if r.code != 2 || !strings.Contains(r.err, `checks[0] "Values" field params: value_diff: param "primary_key" is required`) {
		t.Errorf("missing primary_key: exit %d\n%s", r.code, r.err)
	}
}

func TestRunNoPresets(t *testing.T) {
	p := build(t, dataOnly)
	r := p.ripple(t, "run", "--no-presets")
	if r.code != 0 || r.out != "0 passed, 0 mismatched, 0 failed\n" {
		t.Errorf("--no-presets on an empty state: exit %d\n%s%s", r.code, r.out, r.err)
	}
	if _, err := os.Stat(filepath.Join(p.built.Dir, "ripple.yml")); !os.IsNotExist(err) {
		t.Errorf("--no-presets must not write ripple.yml (%v)", err)
	}
	if _, err := os.Stat(p.state); err != nil {
		t.Errorf("the state file must be written: %v", err)
	}
}

func TestRunWithoutArtifacts(t *testing.T) {
	p := build(t, dataOnly)
	if err := os.RemoveAll(filepath.Join(p.built.Dir, "target")); err != nil {
		t.Fatal(err)
	}
	if r := p.ripple(t, "run"); r.code != 2 || !strings.HasPrefix(r.err, "error: ") {
		t.Errorf("no current artifacts: exit %d, stderr %q", r.code, r.err)
	}
}

func checkBaseJSON(t *testing.T, r result) BaseStatus {
	t.Helper()
	var st BaseStatus
	if err := json.Unmarshal([]byte(r.out), &st); err != nil {
		t.Fatalf("check-base output (%v):\n%s\n%s", err, r.out, r.err)
	}
	return st
}

func TestCheckBase(t *testing.T) {
	p := build(t, dataOnly)

	r := p.ripple(t, "check-base", "--json")
	st := checkBaseJSON(t, r)
	if r.code != 0 || st.Status != "fresh" || st.ExitCode != 0 || st.GeneratedAt == "" || st.Path != filepath.Join(p.built.Dir, "target-base") || st.BaseCommit != "" {
		t.Errorf("fresh base: exit %d, %+v", r.code, st)
	}
	if r := p.ripple(t, "check-base"); r.code != 0 || !strings.HasPrefix(r.out, "fresh: ") {
		t.Errorf("text: exit %d %q", r.code, r.out)
	}

	r = p.ripple(t, "check-base", "--json", "--max-age", "1ns")
	st = checkBaseJSON(t, r)
	if r.code != 1 || st.Status != "stale_time" || st.ExitCode != 1 || !strings.Contains(st.Reason, "limit 1ns") || !strings.Contains(st.Reason, "dbt docs generate --target prod --target-path target-base") {
		t.Errorf("--max-age 1ns: exit %d, %+v", r.code, st)
	}

	// A negative age limit is a usage error, not "everything is stale".
	if r := p.ripple(t, "check-base", "--max-age", "-1h"); r.code != 2 || !strings.Contains(r.err, "--max-age: the age limit must not be negative (got -1 hour)") {
		t.Errorf("--max-age -1h: exit %d\n%s", r.code, r.err)
	}
	// --max-age 0 turns the age rule off.
	if r := p.ripple(t, "check-base", "--max-age", "0"); r.code != 0 {
		t.Errorf("--max-age 0: exit %d\n%s", r.code, r.out)
	}

	if err := os.RemoveAll(filepath.Join(p.built.Dir, "target-base")); err != nil {
		t.Fatal(err)
	}
	r = p.ripple(t, "check-base", "--json")
	st = checkBaseJSON(t, r)
	if r.code != 2 || st.Status != "missing" || st.ExitCode != 2 || st.Reason == "" {
		t.Errorf("missing base: exit %d, %+v", r.code, st)
	}
}

func git(t *testing.T, dir string, date time.Time, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Ripple Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	d := date.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestCheckBaseMergeBase: the base artifacts must be newer than the newest
// commit of the base branch that this branch contains.
func TestCheckBaseMergeBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is required")
		}
		t.Skip("git not installed")
	}
	p := build(t, dataOnly)
	dir := p.built.Dir
	git(t, dir, time.Now(), "init", "-q", "-b", "main")
	git(t, dir, time.Now().Add(-48*time.Hour), "commit", "-q", "--allow-empty", "-m", "old base")
	old := git(t, dir, time.Now(), "rev-parse", "HEAD")

	r := p.ripple(t, "check-base", "--json")
	st := checkBaseJSON(t, r)
	if r.code != 0 || st.Status != "fresh" || st.BaseCommit != old {
		t.Errorf("base commit older than the artifacts: exit %d, %+v", r.code, st)
	}

	// A feature branch off main; main then gets a commit newer than the
	// base artifacts, and the branch merges it.
	git(t, dir, time.Now(), "checkout", "-q", "-b", "feature")
	git(t, dir, time.Now(), "checkout", "-q", "main")
	git(t, dir, time.Now().Add(time.Hour), "commit", "-q", "--allow-empty", "-m", "newer on main")
	newer := git(t, dir, time.Now(), "rev-parse", "HEAD")
	git(t, dir, time.Now(), "checkout", "-q", "feature")

	// Not merged yet: the merge base is still the old commit.
	if r := p.ripple(t, "check-base", "--json"); r.code != 0 || checkBaseJSON(t, r).BaseCommit != old {
		t.Errorf("feature without the new main commit: exit %d\n%s", r.code, r.out)
	}
	git(t, dir, time.Now().Add(time.Hour), "merge", "-q", "--no-edit", "main")
	r = p.ripple(t, "check-base", "--json")
	st = checkBaseJSON(t, r)
	if r.code != 1 || st.Status != "stale_sha" || st.BaseCommit != newer || !strings.Contains(st.Reason, "main has commit "+newer[:12]) {
		t.Errorf("main has a newer commit: exit %d, %+v", r.code, st)
	}
	// Another base branch that does not exist: no git rule applies.
	if r := p.ripple(t, "check-base", "--json", "--base-branch", "no-such-branch"); r.code != 0 || checkBaseJSON(t, r).BaseCommit != "" {
		t.Errorf("unknown base branch: exit %d\n%s", r.code, r.out)
	}
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// TestRunTextHasNoANSI: the text report goes to CI logs and PR comments.
func TestRunTextHasNoANSI(t *testing.T) {
	p := build(t, noChange)
	r := p.ripple(t, "run")
	if ansi.MatchString(r.out) || ansi.MatchString(r.err) {
		t.Errorf("escape codes in output:\n%q\n%q", r.out, r.err)
	}
}

// TestChecksCommands drives the generated checks commands and `ripple run`
// on the checks they saved.
func TestChecksCommands(t *testing.T) {
	p := build(t, dataOnly)
	r := p.ripple(t, "create-check", "--type", "row_count_diff", "--params", `{"node_names": ["customers"]}`, "--name", "Customers rows", "--json")
	if r.code != 0 {
		t.Fatalf("create-check: exit %d\n%s%s", r.code, r.out, r.err)
	}
	var created ops.CreateCheckResult
	if err := json.Unmarshal([]byte(r.out), &created); err != nil {
		t.Fatal(err)
	}
	// create-check runs the check and, as it succeeds, approves it.
	if !created.Created || !created.RunExecuted || created.RunID == "" {
		t.Errorf("create-check = %+v", created)
	}
	r = p.ripple(t, "list-checks")
	want := "1 check: 1 approved, 0 outdated\n" +
		"   #  check           type            last run  verdict  id\n" +
		"✓  0  Customers rows  row_count_diff  Finished  differs  " + created.CheckID + "\n" +
		"(✓ approved; verdict: the last run found base and current the same or different)\n"
	if r.code != 0 || r.out != want {
		t.Errorf("list-checks: exit %d\n%q\nwant\n%q", r.code, r.out, want)
	}
	if r = p.ripple(t, "approve-check", "--check-id", created.CheckID, "--approved=false"); r.code != 0 || !strings.HasPrefix(p.ripple(t, "list-checks").out, "1 check: 0 approved") {
		t.Errorf("unapprove: exit %d %s", r.code, r.err)
	}
	if r = p.ripple(t, "approve-check", "--check-id", created.CheckID); r.code != 0 {
		t.Errorf("approve-check: exit %d %s", r.code, r.err)
	}
	if r = p.ripple(t, "list-checks"); !strings.Contains(r.out, "1 check: 1 approved, 0 outdated\n   #  check           type            last run  verdict  id\n✓  0  Customers rows") {
		t.Errorf("after approve:\n%s", r.out)
	}
	if r = p.ripple(t, "approve-check", "--check-id", "no-such-id"); r.code != 2 || !strings.Contains(r.err, `check "no-such-id" not found`) {
		t.Errorf("approve of an unknown id: exit %d %s", r.code, r.err)
	}
	// The saved check runs in CI; customers went from 2 to 3 rows.
	r = p.ripple(t, "run", "--no-presets", "--json")
	rep := decodeReport(t, r)
	if len(rep.Checks) != 1 || rep.Checks[0].CheckID != created.CheckID || rep.Checks[0].Status != "Finished" {
		t.Fatalf("run: %+v", rep)
	}
	if r.code != 1 || !rep.Checks[0].Mismatched {
		t.Errorf("run --no-presets: exit %d, mismatched %v; want 1, true", r.code, rep.Checks[0].Mismatched)
	}
	if r = p.ripple(t, "delete-check", "--check-id", created.CheckID, "--json"); r.code != 0 || !strings.Contains(r.out, `"deleted": true`) {
		t.Errorf("delete-check: exit %d %s%s", r.code, r.out, r.err)
	}
	if st := loadState(t, p.state); len(st.Checks) != 0 || len(st.Runs) != 2 {
		t.Errorf("after delete: %d checks, %d runs; want 0, 2", len(st.Checks), len(st.Runs))
	}
}

func TestRunCustomConfigPath(t *testing.T) {
	p := build(t, noChange)
	yml := "checks:\n  - name: Customers rows\n    type: row_count_diff\n    params:\n      node_names: [customers]\n"
	if err := os.WriteFile(filepath.Join(p.built.Dir, "ci.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := p.ripple(t, "run", "--config", "ci.yml", "--json")
	rep := decodeReport(t, r)
	if r.code != 0 || len(rep.Checks) != 1 || rep.Checks[0].Name != "Customers rows" || rep.Passed != 1 {
		t.Errorf("--config ci.yml (relative to the project dir): exit %d %+v\n%s", r.code, rep, r.err)
	}
	if _, err := os.Stat(filepath.Join(p.built.Dir, "ripple.yml")); !os.IsNotExist(err) {
		t.Error("--config must not create ripple.yml")
	}
}

func TestRunCorruptStateFile(t *testing.T) {
	p := build(t, noChange)
	if err := os.WriteFile(p.state, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := p.ripple(t, "run")
	if r.code != 2 || !strings.Contains(r.err, p.state) {
		t.Errorf("corrupt state file: exit %d, stderr must name the file:\n%s", r.code, r.err)
	}
	if data, _ := os.ReadFile(p.state); string(data) != "{not json" {
		t.Errorf("a corrupt state file must be left alone, now:\n%s", data)
	}
}

func TestCheckBaseCustomPathAndMtimeFallback(t *testing.T) {
	p := build(t, dataOnly)
	dir := p.built.Dir
	if err := os.Rename(filepath.Join(dir, "target-base"), filepath.Join(dir, "base-artifacts")); err != nil {
		t.Fatal(err)
	}
	if r := p.ripple(t, "check-base", "--target-base-path", "base-artifacts"); r.code != 0 {
		t.Errorf("--target-base-path base-artifacts: exit %d\n%s%s", r.code, r.out, r.err)
	}
	if r := p.ripple(t, "check-base"); r.code != 2 {
		t.Errorf("default target-base/ is gone: exit %d, want 2", r.code)
	}

	// A manifest without generated_at is dated by its modification time.
	manifest := filepath.Join(dir, "base-artifacts", "manifest.json")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	delete(m["metadata"].(map[string]any), "generated_at")
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-30 * 24 * time.Hour)
	if err := os.Chtimes(manifest, old, old); err != nil {
		t.Fatal(err)
	}
	r := p.ripple(t, "check-base", "--target-base-path", "base-artifacts", "--json")
	st := checkBaseJSON(t, r)
	if r.code != 1 || st.Status != "stale_time" || st.GeneratedAt != "" || st.AgeHours < 30*24-1 || !strings.Contains(st.Reason, "--target-path base-artifacts") ||
		!strings.Contains(st.Reason, "generated 30 days ago (limit 2 days)") {
		t.Errorf("30-day-old manifest without generated_at: exit %d %+v", r.code, st)
	}
}

// TestMCPAgentCreateApproves: a check an agent creates over MCP runs, is
// recorded as triggered by recce_ai (ops.WithAgentTrigger) and is approved
// when its run succeeds.
func TestMCPAgentCreateApproves(t *testing.T) {
	p := build(t, dataOnly)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := Run(ctx, []string{"mcp", "--project-dir", p.built.Dir, "--duckdb", p.built.DBPath, "--state-file", p.state},
			IOStreams{In: inR, Out: outW, ErrOut: &errOut})
		outW.Close()
		done <- code
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<24)
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	await := func(id int) json.RawMessage {
		t.Helper()
		for lines.Scan() {
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(lines.Bytes(), &m) != nil || m.ID == nil || *m.ID != id {
				continue
			}
			if m.Error != nil {
				t.Fatalf("request %d: %s", id, m.Error)
			}
			return m.Result
		}
		t.Fatalf("no reply to request %d (%v); stderr:\n%s", id, lines.Err(), errOut.String())
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ripple-test","version":"1"}}}`)
	await(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_check","arguments":{"type":"row_count_diff","params":{"node_names":["customers"]},"name":"Customers rows"}}}`)
	var res struct {
		IsError           bool                  `json:"isError"`
		StructuredContent ops.CreateCheckResult `json:"structuredContent"`
	}
	if err := json.Unmarshal(await(2), &res); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("ripple mcp exited %d:\n%s", code, errOut.String())
	}
	c := res.StructuredContent
	if res.IsError || !c.RunExecuted || c.RunID == "" {
		t.Fatalf("create_check over MCP = %+v", res)
	}
	st := loadState(t, p.state)
	if len(st.Runs) != 1 || st.Runs[0].TriggeredBy != checks.TriggerAgent || len(st.Checks) != 1 || !st.Checks[0].IsChecked {
		t.Errorf("a check an agent created and ran successfully over MCP: runs %+v, checks %+v; want one run by recce_ai, approved", st.Runs, st.Checks)
	}
}
