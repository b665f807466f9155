package cli_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Regression tests of issue #19 at the layers where the defects were found:
// the binary's CLI and its MCP server over stdio.

// copyDemo copies the demo project (artifacts, DuckDB file, profiles.yml
// pointing at the copy) into a fresh directory a test may change.
func copyDemo(t *testing.T) string {
	t.Helper()
	needSuite(t)
	dst := filepath.Join(t.TempDir(), "demo")
	err := filepath.WalkDir(suite.demoDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(suite.demoDir, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if strings.HasSuffix(p, ".wal") || strings.HasPrefix(d.Name(), "ripple_state") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if d.Name() == "profiles.yml" {
			b = []byte(strings.ReplaceAll(string(b), suite.demoDir, dst))
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// mcpSession starts `ripple mcp` with args and connects the Go SDK client.
func mcpSession(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	needSuite(t)
	cmd := exec.Command(suite.bin, append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env = suite.work, cleanEnv()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-security", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var out map[string]any
	if !res.IsError {
		if err := json.Unmarshal([]byte(text.String()), &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return out, text.String(), res.IsError
}

func customerCount(t *testing.T, cs *mcp.ClientSession) float64 {
	t.Helper()
	out, msg, isErr := callTool(t, cs, "query", map[string]any{"sql": "select count(*) as n from {{ ref('customers') }}"})
	if isErr {
		t.Fatalf("query: %s", msg)
	}
	return out["data"].([]any)[0].([]any)[0].(float64)
}

// TestSetBackendReopensWarehouse is defect 7: after set_backend to another
// project, the next query reads that project's database.
func TestSetBackendReopensWarehouse(t *testing.T) {
	t.Parallel()
	a, b := copyDemo(t), copyDemo(t)
	db, err := sql.Open("duckdb", filepath.Join(b, "jaffle_shop.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM "current".customers WHERE customer_id > 10`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// The operator lets set_backend follow the chosen project's profiles.yml.
	cs := mcpSession(t, "--project-dir", a, "--state-file", filepath.Join(t.TempDir(), "s.json"), "--set-backend-profiles")
	if n := customerCount(t, cs); n != 2000 {
		t.Fatalf("project A: %v customers", n)
	}
	if _, msg, isErr := callTool(t, cs, "set_backend", map[string]any{"mode": "local", "project_dir": b}); isErr {
		t.Fatal(msg)
	}
	if n := customerCount(t, cs); n != 10 {
		t.Fatalf("after set_backend to B the query read %v customers, want B's 10", n)
	}
}

// TestSetBackendKeepsStartupProfile is issue #27 item 7 end to end: without
// --set-backend-profiles, set_backend switches the artifacts but not the
// warehouse, which stays the one the startup project's profiles.yml names.
func TestSetBackendKeepsStartupProfile(t *testing.T) {
	t.Parallel()
	a, b := copyDemo(t), copyDemo(t)
	db, err := sql.Open("duckdb", filepath.Join(b, "jaffle_shop.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM "current".customers WHERE customer_id > 10`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	cs := mcpSession(t, "--project-dir", a, "--state-file", filepath.Join(t.TempDir(), "s.json"))
	if _, msg, isErr := callTool(t, cs, "set_backend", map[string]any{"mode": "local", "project_dir": b}); isErr {
		t.Fatal(msg)
	}
	if n := customerCount(t, cs); n != 2000 {
		t.Fatalf("after set_backend to B without --set-backend-profiles the query read %v customers, want A's warehouse (2000)", n)
	}
}

// TestMCPQueryGuard is defect 1 where it was found: through MCP query the
// string that DuckDB reads as three statements is refused, the server's
// settings are untouched and profile_diff still works — with the profile
// and in --duckdb mode (where USE/DETACH would break every warehouse tool).
func TestMCPQueryGuard(t *testing.T) {
	t.Parallel()
	for _, mode := range [][]string{
		{"--project-dir", suite.demoDir},
		{"--project-dir", suite.demoDir, "--duckdb", suite.dbPath},
	} {
		cs := mcpSession(t, append(mode, "--state-file", filepath.Join(t.TempDir(), "s.json"))...)
		for _, probe := range []string{
			`SELECT '\' ; SET memory_limit='1MB'; SET lock_configuration=true; SELECT 1 --'`,
			`SELECT '\' ; USE memory; DETACH jaffle_shop; SELECT 1 --'`,
			"ATTACH ':memory:' AS x",
		} {
			if _, msg, isErr := callTool(t, cs, "query", map[string]any{"sql": probe}); !isErr || !strings.Contains(msg, "read-only") {
				t.Errorf("%v: %q ran: %s", mode, probe, msg)
			}
		}
		out, msg, isErr := callTool(t, cs, "query", map[string]any{"sql": "select current_setting('memory_limit') as m"})
		if isErr || strings.Contains(fmt.Sprint(out["data"]), "1.0 MiB") {
			t.Errorf("%v: memory_limit after the probes: %v %s", mode, out["data"], msg)
		}
		if _, msg, isErr := callTool(t, cs, "profile_diff", map[string]any{"model": "customers"}); isErr {
			t.Errorf("%v: profile_diff after the probes: %s", mode, msg)
		}
	}
}

// TestExternalAccessCLI is defect 2: with --duckdb-external-access the CLI
// reads files but ATTACHes, COPYs and INSTALLs nothing.
func TestExternalAccessCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	other := filepath.Join(dir, "other.duckdb")
	db, err := sql.Open("duckdb", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t AS SELECT range AS i FROM range(5)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	out := filepath.Join(dir, "out.csv")
	for _, q := range []string{
		"ATTACH '" + other + "' AS o",
		"select 1; ATTACH '" + other + "' AS o; DELETE FROM o.t",
		"COPY (select 1) TO '" + out + "'",
		"INSTALL httpfs",
	} {
		r := ripple(t, "--duckdb-external-access", "query", "--sql", q, "--json")
		wantError(t, r, 1, false, "read-only")
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
	db, _ = sql.Open("duckdb", other+"?access_mode=READ_ONLY")
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 5 {
		t.Errorf("the other database has %d rows (%v), want 5", n, err)
	}
	csv := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(csv, []byte("a\n1\n2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := rippleJSON(t, "--duckdb-external-access", "query", "--sql", "select count(*) as n from read_csv('"+csv+"')")
	if got := fmt.Sprint(get(t, res, "data")); got != "[[3]]" {
		t.Errorf("reading a file with external access: %s", got)
	}
}

// TestRelationNameCLI is defect 9: a manifest relation_name with SQL after
// the relation fails row-count-diff with an error naming the node.
func TestRelationNameCLI(t *testing.T) {
	t.Parallel()
	dir := copyDemo(t)
	path := filepath.Join(dir, "target", "manifest.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	good := `"relation_name":"\"jaffle_shop\".\"current\".\"customers\""`
	evil := `"relation_name":"\"jaffle_shop\".\"current\".\"customers\"; SET memory_limit='1MB'; SELECT 1"`
	if !strings.Contains(string(b), good) {
		t.Fatal("the demo manifest changed: no customers relation_name")
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), good, evil, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := execRipple(t, "--project-dir", dir, "--duckdb", filepath.Join(dir, "jaffle_shop.duckdb"), "row-count-diff", "customers", "--json")
	wantError(t, r, 1, false, "model.jaffle_shop.customers", "not a relation name")
}

// TestRunLeavesNoLockFile: `ripple run` writes its state file and nothing
// else next to it (the lock file is removed after each save).
func TestRunLeavesNoLockFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "ripple_state.json")
	r := execRipple(t, "--project-dir", suite.demoDir, "--duckdb", suite.dbPath, "--state-file", state,
		"run", "--config", filepath.Join(t.TempDir(), "ripple.yml"), "--json")
	if r.code != 1 { // the demo's presets find differences
		t.Fatalf("run: %s", r)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "ripple_state.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files next to the state file: %v", names)
	}
}

// TestSymlinkedStateFileCLI: a --state-file that is a symbolic link is
// written through; the link stays.
func TestSymlinkedStateFileCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "shared", "review.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "ripple_state.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"orders", "customers"} {
		r := execRipple(t, "--project-dir", suite.demoDir, "--duckdb", suite.dbPath, "--state-file", link,
			"create-check", "--type", "row_count_diff", "--name", "Rows of "+model, "--params", `{"node_names":["`+model+`"]}`, "--json")
		if r.code != 0 {
			t.Fatal(r)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced (%v)", err)
	}
	b, err := os.ReadFile(target)
	var st struct {
		Checks []map[string]any `json:"checks"`
	}
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil || len(st.Checks) != 2 {
		t.Fatalf("target holds %d checks (%v), want 2:\n%s", len(st.Checks), err, b)
	}
}

// TestMCPAndCLIWritersKeepEveryCheck is defect 3 as found: an MCP server
// and CLI processes create checks on one state file at the same time;
// every check is in the file at the end.
func TestMCPAndCLIWritersKeepEveryCheck(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "ripple_state.json")
	if err := os.WriteFile(state, []byte(`{"version": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := mcpSession(t, "--project-dir", suite.demoDir, "--duckdb", suite.dbPath, "--state-file", state)
	const perWriter = 6
	var wg sync.WaitGroup
	errs := make(chan string, 4*perWriter)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				r := execRipple(t, "--project-dir", suite.demoDir, "--state-file", state, "create-check", "--type", "schema_diff",
					"--name", fmt.Sprintf("cli %d %d", w, i), "--params", fmt.Sprintf(`{"select":"cli%d_%d"}`, w, i), "--json")
				if r.code != 0 {
					errs <- r.String()
				}
			}
		}()
	}
	for i := range perWriter {
		if _, msg, isErr := callTool(t, cs, "create_check", map[string]any{"type": "schema_diff", "name": fmt.Sprintf("mcp %d", i), "params": map[string]any{"select": fmt.Sprintf("mcp_%d", i)}}); isErr {
			errs <- msg
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Checks []struct {
			Params map[string]any `json:"params"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Checks) != 4*perWriter {
		t.Fatalf("%d checks in the state file, want %d", len(st.Checks), 4*perWriter)
	}
}

// TestMCPResultByteCap is defect 5 at the MCP layer: a query of long values
// returns a bounded reply, marked truncated, instead of gigabytes.
func TestMCPResultByteCap(t *testing.T) {
	t.Parallel()
	cs := mcpSession(t, "--project-dir", suite.demoDir, "--duckdb", suite.dbPath, "--state-file", filepath.Join(t.TempDir(), "s.json"),
		"--max-result-bytes", "1000000", "--max-cell-bytes", "20000")
	start := time.Now()
	out, msg, isErr := callTool(t, cs, "query", map[string]any{"sql": "select repeat('x', 100000) as s from range(2000)"})
	if isErr {
		t.Fatal(msg)
	}
	if out["truncated"] != true || out["more"] != true || out["bytes"].(float64) > 1000000 || len(msg) > 1100000 {
		t.Fatalf("truncated=%v more=%v bytes=%v reply=%d bytes", out["truncated"], out["more"], out["bytes"], len(msg))
	}
	// The MCP reply cap (1 MiB by default, text and structured content
	// together) reads rows up to half of it, since each row travels twice:
	// about 26 rows of 20 kB, within the 1 MB result cap too.
	if rows := len(out["data"].([]any)); rows < 20 || rows > 50 {
		t.Errorf("%d rows of 20 kB under a 1 MB cap", rows)
	}
	t.Logf("capped reply of %d bytes in %v", len(msg), time.Since(start).Round(time.Millisecond))
}
