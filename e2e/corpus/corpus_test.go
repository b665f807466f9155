// Package corpus_test replays Ripple's end-to-end corpus: one directory per
// case under testdata/, each holding args.json (the MCP tools/call params of
// one or more steps) and the expected result. Every case runs through both
// surfaces — the CLI in-process (cli.Run with --json) and the MCP server over
// the SDK's in-memory transport — on both warehouses (DuckDB and a real
// PostgreSQL holding the same data), and every combination must produce the
// same JSON as the golden file. A new behaviour is a new case directory; see
// docs/development.md.
package corpus_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/cli"
	"github.com/ripple-data/ripple/internal/dbtfixture/pgmirror"
	"github.com/ripple-data/ripple/internal/demo"
	"github.com/ripple-data/ripple/internal/golden"
	"github.com/ripple-data/ripple/internal/mcpserver"
)

// Case is one corpus entry (testdata/<name>/args.json).
type Case struct {
	// Description says what behaviour the case pins down.
	Description string `json:"description"`
	// Steps are tools/call params run in order against one fresh state
	// file; a single-step case may give name/arguments at the top level.
	Steps []Step `json:"steps,omitempty"`
	Step
	// Warehouses the case runs on (default both: duckdb, postgres). An
	// artifact-only case may list just one.
	Warehouses []string `json:"warehouses,omitempty"`
	// Surfaces the case runs through (default both: cli, mcp). MCP-only
	// tools such as get_server_info list just mcp.
	Surfaces []string `json:"surfaces,omitempty"`
	// BaseInCurrentSchema replays the case on base artifacts whose
	// relations are in the current schema, as when a user builds main and
	// the PR into one schema: the code differs, but every model's base and
	// current are the same table.
	BaseInCurrentSchema bool `json:"base_in_current_schema,omitempty"`
	// CosmeticEdit names a model whose current code is replayed with a
	// cosmetic-only edit (a comment, keyword case, layout) and a new
	// checksum, so dbt's state:modified.body selects it.
	CosmeticEdit string `json:"cosmetic_edit,omitempty"`
}

// Step is one tool call, exactly as an MCP client sends it.
type Step struct {
	Name      string         `json:"name,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

func (c *Case) steps() []Step {
	if len(c.Steps) > 0 {
		return c.Steps
	}
	return []Step{c.Step}
}

// env is the demo project built on one warehouse.
type env struct {
	name       string
	projectDir string
	// globals are the CLI's global flags that point Ripple at this build.
	globals []string
	// scrub maps build-specific strings (schema names, paths) to stable tokens.
	scrub []string
}

var suite struct {
	envs     map[string]*env
	setupErr map[string]error
}

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "ripple-corpus-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	suite.envs, suite.setupErr = map[string]*env{}, map[string]error{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	for _, w := range []string{"duckdb", "postgres"} {
		e, err := build(ctx, w, filepath.Join(tmp, w))
		if err != nil {
			suite.setupErr[w] = err
			continue
		}
		suite.envs[w] = e
	}
	cancel()
	code := m.Run()
	if e := suite.envs["postgres"]; e != nil {
		_ = pgmirror.Drop(context.Background(), os.Getenv("RIPPLE_TEST_POSTGRES_DSN"), e.scrub[1], e.scrub[3])
	}
	os.RemoveAll(tmp)
	os.Exit(code)
}

// build writes the demo project for one warehouse. Schema names are unique
// per run so that several test runs can share one PostgreSQL server.
func build(ctx context.Context, warehouse, dir string) (*env, error) {
	suffix := fmt.Sprintf("%d", time.Now().UnixNano()%1e9)
	p := demo.Project()
	dsn := os.Getenv("RIPPLE_TEST_POSTGRES_DSN")
	if warehouse == "postgres" {
		if dsn == "" {
			return nil, errors.New("RIPPLE_TEST_POSTGRES_DSN is not set")
		}
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, err
		}
		p = p.DatabaseFile(cfg.Database + ".duckdb")
	} else {
		// Not the project's name, so that scrubbing the database name never
		// touches unique ids (model.jaffle_shop.x).
		p = p.DatabaseFile("corpus_wh.duckdb")
	}
	p = p.Schemas("corpus_b"+suffix, "corpus_c"+suffix)
	b, err := p.Build(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("building the demo for %s: %w", warehouse, err)
	}
	e := &env{name: warehouse, projectDir: dir,
		scrub: []string{dir, "<project>", b.BaseSchema, "<base_schema>", b.CurrentSchema, "<current_schema>"}}
	switch warehouse {
	case "duckdb":
		e.globals = []string{"--project-dir", dir, "--duckdb", b.DBPath}
	case "postgres":
		if err := pgmirror.Copy(ctx, b, dsn); err != nil {
			return nil, fmt.Errorf("copying the demo into PostgreSQL: %w", err)
		}
		cfg, _ := pgx.ParseConfig(dsn)
		profilesDir := filepath.Join(dir, "pg-profiles")
		if err := os.MkdirAll(profilesDir, 0o755); err != nil {
			return nil, err
		}
		yml := fmt.Sprintf("jaffle_shop:\n  target: current\n  outputs:\n    current:\n      type: postgres\n      host: %s\n      port: %d\n      user: %s\n      password: %s\n      dbname: %s\n      schema: %s\n      threads: 4\n",
			cfg.Host, cfg.Port, cfg.User, cfg.Password, cfg.Database, b.CurrentSchema)
		if err := os.WriteFile(filepath.Join(profilesDir, "profiles.yml"), []byte(yml), 0o600); err != nil {
			return nil, err
		}
		e.globals = []string{"--project-dir", dir, "--profiles-dir", profilesDir}
		e.scrub = append(e.scrub, cfg.Database, "<database>")
	}
	if warehouse == "duckdb" {
		e.scrub = append(e.scrub, b.Database, "<database>")
	}
	// The schema names are scrubbed to the same tokens on both warehouses,
	// so each scrub pair's first string must be replaced before any shorter
	// string it contains.
	return e, nil
}

func needEnv(t *testing.T, warehouse string) *env {
	t.Helper()
	if e := suite.envs[warehouse]; e != nil {
		return e
	}
	err := suite.setupErr[warehouse]
	if warehouse == "postgres" && os.Getenv("RIPPLE_TEST_POSTGRES_DSN") == "" && os.Getenv("CI") != "true" {
		t.Skipf("postgres: %v (set it to run the corpus on PostgreSQL; CI always does)", err)
	}
	t.Fatalf("%s setup failed: %v", warehouse, err)
	return nil
}

func TestCorpus(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "args.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no corpus cases under testdata/ (%v)", err)
	}
	for _, argsPath := range dirs {
		dir := filepath.Dir(argsPath)
		name := filepath.Base(dir)
		raw, err := os.ReadFile(argsPath)
		if err != nil {
			t.Fatal(err)
		}
		var c Case
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s: %v", argsPath, err)
		}
		if c.Description == "" {
			t.Errorf("%s: a case needs a description of the behaviour it pins down", argsPath)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runCase(t, dir, &c)
		})
	}
}

// runCase replays one case on every warehouse × surface and compares each
// outcome with the golden. The golden is expected.json; where one warehouse
// or surface legitimately differs (e.g. type names), an override file
// expected.<warehouse>.json, expected.<surface>.json or
// expected.<surface>.<warehouse>.json wins. -update writes expected.json from
// the first combination and an override for each combination that differs.
func runCase(t *testing.T, dir string, c *Case) {
	warehouses := orDefault(c.Warehouses, "duckdb", "postgres")
	surfaces := orDefault(c.Surfaces, "cli", "mcp")
	got := map[string][]byte{}
	var order []string
	for _, w := range warehouses {
		for _, s := range surfaces {
			t.Run(w+"/"+s, func(t *testing.T) {
				e := needEnv(t, w)
				out := replay(t, e, s, c)
				if golden.Update() {
					got[w+"/"+s] = out
					order = append(order, w+"/"+s)
					return
				}
				golden.Assert(t, expectedPath(dir, w, s), out)
			})
		}
	}
	if golden.Update() && len(order) > 0 {
		writeGoldens(t, dir, order, got)
	}
}

// writeGoldens writes expected.json from the first combination, an
// expected.<warehouse>.json where a warehouse differs from it, and an
// expected.<surface>.<warehouse>.json where one surface differs again; stale
// override files are removed.
func writeGoldens(t *testing.T, dir string, order []string, got map[string][]byte) {
	t.Helper()
	old, _ := filepath.Glob(filepath.Join(dir, "expected.*.json"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	base := got[order[0]]
	golden.Assert(t, filepath.Join(dir, "expected.json"), base)
	w0, _, _ := strings.Cut(order[0], "/")
	perWarehouse := map[string][]byte{w0: base}
	for _, k := range order[1:] {
		w, s, _ := strings.Cut(k, "/")
		want, ok := perWarehouse[w]
		if !ok {
			want = base
			if !bytes.Equal(got[k], base) {
				// The first surface seen on a warehouse sets that warehouse's golden.
				perWarehouse[w] = got[k]
				golden.Assert(t, filepath.Join(dir, "expected."+w+".json"), got[k])
				continue
			}
			perWarehouse[w] = base
		}
		if !bytes.Equal(got[k], want) {
			golden.Assert(t, filepath.Join(dir, "expected."+s+"."+w+".json"), got[k])
		}
	}
}

func expectedPath(dir, warehouse, surface string) string {
	for _, n := range []string{"expected." + surface + "." + warehouse + ".json", "expected." + warehouse + ".json", "expected." + surface + ".json"} {
		p := filepath.Join(dir, n)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join(dir, "expected.json")
}

func orDefault(v []string, def ...string) []string {
	if len(v) == 0 {
		return def
	}
	return v
}

// outcome is what one step produced: its result, or the error a user sees.
type outcome struct {
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
	// ExitCode is the CLI's exit status; MCP outcomes record 1 for a tool error.
	ExitCode int `json:"exit_code"`
}

// replay runs the case's steps through one surface against one fresh state
// file and returns the canonical, scrubbed JSON of their outcomes.
func replay(t *testing.T, e *env, surface string, c *Case) []byte {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state.json")
	scrub := append([]string{state, "<state_file>"}, e.scrub...)
	if c.BaseInCurrentSchema {
		shared := *e
		shared.globals = append(append([]string{}, e.globals...), "--target-base-path", baseInCurrentSchema(t, e))
		e = &shared
	}
	if c.CosmeticEdit != "" {
		shared := *e
		shared.globals = append(append([]string{}, e.globals...), "--target-path", cosmeticEdit(t, e, c.CosmeticEdit))
		e = &shared
	}
	var outs []outcome
	var call func(Step) outcome
	switch surface {
	case "cli":
		call = func(st Step) outcome { return callCLI(t, e, state, st) }
	case "mcp":
		cs := connectMCP(t, e, state)
		call = func(st Step) outcome { return callMCP(t, cs, st) }
	default:
		t.Fatalf("unknown surface %q", surface)
	}
	var prev []outcome
	for _, st := range c.steps() {
		st.Arguments = resolveRefs(t, st.Arguments, prev)
		o := call(st)
		prev = append(prev, o)
		outs = append(outs, o)
	}
	var v any = outs
	if len(outs) == 1 {
		v = outs[0]
	}
	return canonical(t, v, scrub)
}

// resolveRefs replaces string arguments of the form "$<step>.<key>.<key>"
// with a value from an earlier step's result (e.g. "$0.check_id").
func resolveRefs(t *testing.T, args map[string]any, prev []outcome) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		s, ok := v.(string)
		if !ok || !strings.HasPrefix(s, "$") {
			out[k] = v
			continue
		}
		parts := strings.Split(s[1:], ".")
		var idx int
		if _, err := fmt.Sscanf(parts[0], "%d", &idx); err != nil || idx >= len(prev) {
			t.Fatalf("bad step reference %q", s)
		}
		var cur any = prev[idx].Result
		for _, p := range parts[1:] {
			m, _ := cur.(map[string]any)
			cur = m[p]
		}
		if cur == nil {
			t.Fatalf("step reference %q resolved to nothing (step %d: %+v)", s, idx, prev[idx])
		}
		out[k] = cur
	}
	return out
}

// callCLI runs `ripple <command> <flags> --json` in-process. Each argument
// becomes the flag of its kebab-case name: strings and numbers as values,
// booleans as --flag=true|false, string lists as repeated flags, anything
// else as JSON.
func callCLI(t *testing.T, e *env, state string, st Step) outcome {
	t.Helper()
	args := append([]string{strings.ReplaceAll(st.Name, "_", "-")}, e.globals...)
	args = append(args, "--state-file", state, "--json")
	keys := make([]string, 0, len(st.Arguments))
	for k := range st.Arguments {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		flag := "--" + strings.ReplaceAll(k, "_", "-")
		switch v := st.Arguments[k].(type) {
		case string:
			args = append(args, flag+"="+v)
		case bool, float64:
			args = append(args, fmt.Sprintf("%s=%v", flag, v))
		case []any:
			strs, ok := stringList(v)
			if !ok {
				b, _ := json.Marshal(v)
				args = append(args, flag+"="+string(b))
				break
			}
			for _, s := range strs {
				args = append(args, flag+"="+s)
			}
		default:
			b, _ := json.Marshal(v)
			args = append(args, flag+"="+string(b))
		}
	}
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), args, cli.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr})
	if code != 0 {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndex(msg, "\nerror: "); i >= 0 {
			msg = msg[i+1:]
		}
		return outcome{Error: strings.TrimPrefix(msg, "error: "), ExitCode: code}
	}
	var v any
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatalf("ripple %s: stdout is not JSON: %v\n%s", strings.Join(args, " "), err, stdout.String())
	}
	return outcome{Result: v}
}

func stringList(v []any) ([]string, bool) {
	out := make([]string, 0, len(v))
	for _, x := range v {
		s, ok := x.(string)
		if !ok || strings.Contains(s, ",") {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// connectMCP serves the MCP server over the SDK's in-memory transport with
// the same session configuration the CLI builds from its flags.
func connectMCP(t *testing.T, e *env, state string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	g, err := cli.ParseGlobals(append(append([]string{}, e.globals...), "--state-file", state))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	sess := g.NewSession(cli.IOStreams{Out: &bytes.Buffer{}, ErrOut: &logs})
	t.Cleanup(func() { _ = sess.Close() })
	srv, err := mcpserver.New(ctx, mcpserver.Options{Session: sess, Version: "corpus", Toolsets: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "corpus", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callMCP(t *testing.T, cs *mcp.ClientSession, st Step) outcome {
	t.Helper()
	args := st.Arguments
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: st.Name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", st.Name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return outcome{Error: text.String(), ExitCode: 1}
	}
	var v any
	if err := json.Unmarshal([]byte(text.String()), &v); err != nil {
		t.Fatalf("%s: text content is not JSON: %v", st.Name, err)
	}
	return outcome{Result: v}
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?`)
)

// volatileKeys hold values that differ on every run; they are replaced by
// "<volatile>" wherever they appear.
var volatileKeys = map[string]bool{"duration_ms": true, "elapsed_ms": true, "version": true, "base_status_reason": true}

// canonical returns v as indented JSON with sorted keys after replacing
// build-specific strings, ids, timestamps and volatile values.
func canonical(t *testing.T, v any, scrub []string) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(raw, &x); err != nil {
		t.Fatal(err)
	}
	x = scrubValue(x, scrub)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(x); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func scrubValue(v any, scrub []string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if volatileKeys[k] && val != nil {
				x[k] = "<volatile>"
				continue
			}
			x[k] = scrubValue(val, scrub)
		}
		return x
	case []any:
		for i := range x {
			x[i] = scrubValue(x[i], scrub)
		}
		return x
	case string:
		for i := 0; i+1 < len(scrub); i += 2 {
			if scrub[i] != "" {
				x = strings.ReplaceAll(x, scrub[i], scrub[i+1])
			}
		}
		x = uuidRE.ReplaceAllString(x, "<uuid>")
		return timeRE.ReplaceAllString(x, "<time>")
	}
	return v
}

// cosmeticEdit copies the current artifacts with model's raw and compiled
// code edited cosmetically (a comment, SELECT/FROM in upper case, the
// select list on one line) and its checksum changed, and returns the
// copy's directory.
func cosmeticEdit(t *testing.T, e *env, model string) string {
	t.Helper()
	src := filepath.Join(e.projectDir, "target")
	dst := t.TempDir()
	files, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(code string) string {
		code = strings.Replace(code, "select\n    ", "SELECT ", 1)
		code = strings.ReplaceAll(code, ",\n    ", ", ")
		code = strings.Replace(code, "\nfrom ", "\n  FROM ", 1)
		return "-- reformatted: same query\n" + code
	}
	found := false
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if f.Name() == "manifest.json" {
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			for _, v := range m["nodes"].(map[string]any) {
				n := v.(map[string]any)
				if n["name"] != model || n["resource_type"] != "model" {
					continue
				}
				found = true
				for _, k := range []string{"raw_code", "compiled_code"} {
					if code, ok := n[k].(string); ok {
						n[k] = edit(code)
					}
				}
				n["checksum"] = map[string]any{"name": "sha256", "checksum": "cosmetic-edit"}
			}
			if data, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dst, f.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !found {
		t.Fatalf("cosmetic_edit: no model %q in the current manifest", model)
	}
	return dst
}

// baseInCurrentSchema copies the base artifacts with the base schema's
// name replaced by the current one's, and returns the copy's directory.
func baseInCurrentSchema(t *testing.T, e *env) string {
	t.Helper()
	src := filepath.Join(e.projectDir, "target-base")
	dst := t.TempDir()
	files, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.ReplaceAll(data, []byte(e.scrub[2]), []byte(e.scrub[4])) // base schema → current schema
		if err := os.WriteFile(filepath.Join(dst, f.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
