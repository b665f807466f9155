// Package cli_test is Ripple's end-to-end test layer: it builds the real
// ripple binary once, builds the demo project once with `ripple demo`, and
// runs every operation of the registry as a subprocess
// (`ripple --project-dir D --duckdb D/jaffle_shop.duckdb <command> ... --json`),
// asserting the exact numbers of the demo (internal/demo) and checking them
// independently against the DuckDB file opened read-only.
package cli_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

// suite is what TestMain prepares once for every test of the package.
var suite struct {
	bin      string // the built ripple binary
	tmp      string // scratch root
	demoDir  string // the demo project
	dbPath   string // demo DuckDB file
	work     string // working directory of subprocesses (state files land here)
	demo     [2][]byte
	demoErr  [2][]byte
	db       *sql.DB // the demo database, READ_ONLY
	setupErr error
	timing   string // how long the build and the demo took
}

func TestMain(m *testing.M) {
	code := func() int {
		tmp, err := os.MkdirTemp("", "ripple-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		if err := setup(tmp); err != nil {
			// Tests report setupErr themselves, so `go test` shows which
			// step failed instead of an opaque exit status.
			suite.setupErr = err
		}
		defer func() {
			if suite.db != nil {
				suite.db.Close()
			}
		}()
		return m.Run()
	}()
	os.Exit(code)
}

func setup(tmp string) error {
	suite.tmp = tmp
	suite.bin = filepath.Join(tmp, "ripple")
	suite.demoDir = filepath.Join(tmp, "demo")
	suite.dbPath = filepath.Join(suite.demoDir, "jaffle_shop.duckdb")
	suite.work = filepath.Join(tmp, "work")
	if err := os.MkdirAll(suite.work, 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	start := time.Now()
	build := exec.CommandContext(ctx, "go", "build", "-o", suite.bin, "./cmd/ripple")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/ripple: %w\n%s", err, out)
	}
	suite.timing = fmt.Sprintf("go build %.1fs", time.Since(start).Seconds())
	start = time.Now()
	// `ripple demo` twice into the same directory: the second run must
	// replace the first and report the same numbers (TestDemoIdempotent).
	// The first run prints the human report, the second --json.
	for i, args := range [][]string{{"demo", "--dir", suite.demoDir}, {"demo", "--dir", suite.demoDir, "--json"}} {
		cmd := exec.CommandContext(ctx, suite.bin, args...)
		cmd.Dir, cmd.Env = suite.work, cleanEnv()
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("ripple demo (run %d): %w\n%s", i+1, err, stderr.String())
		}
		suite.demo[i], suite.demoErr[i] = stdout.Bytes(), stderr.Bytes()
	}
	suite.timing += fmt.Sprintf(", ripple demo ×2 %.1fs", time.Since(start).Seconds())
	db, err := sql.Open("duckdb", suite.dbPath+"?access_mode=READ_ONLY")
	if err != nil {
		return fmt.Errorf("opening the demo database read-only: %w", err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return fmt.Errorf("opening the demo database read-only: %w", err)
	}
	suite.db = db
	return nil
}

// cleanEnv is the environment of subprocesses without the variables that
// would change Ripple's defaults (DBT_PROJECT_DIR, RIPPLE_DUCKDB, ...).
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DBT_") || strings.HasPrefix(kv, "RIPPLE_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func needSuite(t testing.TB) {
	t.Helper()
	if suite.setupErr != nil {
		t.Fatalf("end-to-end setup failed: %v", suite.setupErr)
	}
}

// result is one finished ripple process.
type result struct {
	args           []string
	stdout, stderr []byte
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("ripple %s\nexit %d\nstdout: %s\nstderr: %s", strings.Join(r.args, " "), r.code, clip(r.stdout), clip(r.stderr))
}

func clip(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// stackTrace matches what a Go panic or a dumped stack looks like.
var stackTrace = regexp.MustCompile(`(?m)^goroutine \d+ \[|^panic: |runtime/debug\.Stack|\.go:\d+ \+0x`)

// exec runs the binary with exactly args and checks the invariants that hold
// for every invocation: it ends, and no Go stack trace reaches stderr.
func execRipple(t testing.TB, args ...string) result {
	t.Helper()
	needSuite(t)
	r := runIn(t, suite.work, nil, append([]string{suite.bin}, args...)...)
	r.args = args
	return r
}

// runIn runs argv in dir with the test environment (plus extra variables)
// and checks that no Go stack trace reaches the user.
func runIn(t testing.TB, dir string, extraEnv []string, argv ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(cleanEnv(), extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{args: argv, stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("running %v: %v", argv, err)
	}
	if stackTrace.Match(r.stderr) || stackTrace.Match(r.stdout) {
		t.Errorf("a Go stack trace reached the user:\n%s", r)
	}
	return r
}

// demoArgs are the global flags pointing at the demo project.
func demoArgs(args ...string) []string {
	return append([]string{"--project-dir", suite.demoDir, "--duckdb", suite.dbPath,
		"--state-file", filepath.Join(suite.work, "ripple_state.json")}, args...)
}

// ripple runs a command against the demo project.
func ripple(t testing.TB, args ...string) result {
	t.Helper()
	needSuite(t)
	return execRipple(t, demoArgs(args...)...)
}

// rippleJSON runs `<args> --json` against the demo, requires exit 0 and a
// stdout that is exactly one JSON document, and returns it decoded with
// json.Number for numbers (so decimals compare exactly).
func rippleJSON(t testing.TB, args ...string) map[string]any {
	t.Helper()
	r := ripple(t, append(args, "--json")...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", r.code, r)
	}
	v := decodeOnly(t, r)
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("stdout is JSON but not an object:\n%s", r)
	}
	return m
}

// decodeOnly decodes stdout as exactly one JSON value (whitespace around it
// is allowed, anything else is not).
func decodeOnly(t testing.TB, r result) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(r.stdout))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("stdout has more than one JSON value (logs on stdout?):\n%s", r)
	}
	return v
}

// get walks a decoded JSON value: string steps index objects, int steps
// index arrays.
func get(t testing.TB, v any, path ...any) any {
	t.Helper()
	cur := v
	for i, step := range path {
		switch s := step.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %v: %T", path, path[:i], cur)
			}
			next, ok := m[s]
			if !ok {
				t.Fatalf("%v: no key %q (keys: %v)", path, s, keys(m))
			}
			cur = next
		case int:
			a, ok := cur.([]any)
			if !ok || s >= len(a) {
				t.Fatalf("%v: no element %d at %v", path, s, path[:i])
			}
			cur = a[s]
		}
	}
	return cur
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// integer reads an integral JSON number; -1 stands for null.
func integer(t testing.TB, v any, path ...any) int64 {
	t.Helper()
	x := get(t, v, path...)
	if x == nil {
		return -1
	}
	n, ok := x.(json.Number)
	if !ok {
		t.Fatalf("%v: %v (%T) is not a number", path, x, x)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatalf("%v: %v is not an integer", path, n)
	}
	return i
}

func float(t testing.TB, v any, path ...any) float64 {
	t.Helper()
	n, ok := get(t, v, path...).(json.Number)
	if !ok {
		t.Fatalf("%v: %v is not a number", path, get(t, v, path...))
	}
	f, err := n.Float64()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func str(t testing.TB, v any, path ...any) string {
	t.Helper()
	x := get(t, v, path...)
	s, ok := x.(string)
	if !ok {
		t.Fatalf("%v: %v (%T) is not a string", path, x, x)
	}
	return s
}

func strs(t testing.TB, v any, path ...any) []string {
	t.Helper()
	x := get(t, v, path...)
	if x == nil {
		return nil
	}
	a, ok := x.([]any)
	if !ok {
		t.Fatalf("%v: %v is not an array", path, x)
	}
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, ok := e.(string)
		if !ok {
			t.Fatalf("%v: element %v is not a string", path, e)
		}
		out = append(out, s)
	}
	return out
}

// table turns Ripple's tabular shape {"columns":[{key}], "data":[[...]]}
// into rows keyed by column key.
func table(t testing.TB, v any) []map[string]any {
	t.Helper()
	var cols []string
	for _, c := range get(t, v, "columns").([]any) {
		cols = append(cols, str(t, c, "key"))
	}
	data, _ := get(t, v, "data").([]any)
	out := make([]map[string]any, 0, len(data))
	for _, row := range data {
		cells := row.([]any)
		if len(cells) != len(cols) {
			t.Fatalf("row %v has %d cells for %d columns %v", row, len(cells), len(cols), cols)
		}
		m := map[string]any{}
		for i, c := range cols {
			m[c] = cells[i]
		}
		out = append(out, m)
	}
	return out
}

// dbInt runs a single-value query on the demo database.
func dbInt(t testing.TB, query string, args ...any) int64 {
	t.Helper()
	needSuite(t)
	var n int64
	if err := suite.db.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func dbString(t testing.TB, query string, args ...any) string {
	t.Helper()
	needSuite(t)
	var s sql.NullString
	if err := suite.db.QueryRowContext(context.Background(), query, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return s.String
}

func dbFloat(t testing.TB, query string, args ...any) float64 {
	t.Helper()
	needSuite(t)
	var f float64
	if err := suite.db.QueryRowContext(context.Background(), query, args...).Scan(&f); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return f
}

func dbStrings(t testing.TB, query string, args ...any) []string {
	t.Helper()
	needSuite(t)
	rows, err := suite.db.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func relExists(t testing.TB, schema, name string) bool {
	t.Helper()
	return dbInt(t, `select count(*) from information_schema.tables where table_schema = ? and table_name = ?`, schema, name) == 1
}

func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	scale := 1.0
	if b > 1 || b < -1 {
		scale = b
		if scale < 0 {
			scale = -scale
		}
	}
	return d <= 1e-9*scale
}

// boolean reads a boolean that may be omitted when false (omitempty).
func boolean(t testing.TB, v any, path ...any) bool {
	t.Helper()
	parent := v
	if len(path) > 1 {
		parent = get(t, v, path[:len(path)-1]...)
	}
	m, ok := parent.(map[string]any)
	if !ok {
		t.Fatalf("%v: parent is not an object", path)
	}
	x, ok := m[path[len(path)-1].(string)]
	if !ok || x == nil {
		return false
	}
	b, ok := x.(bool)
	if !ok {
		t.Fatalf("%v: %v is not a boolean", path, x)
	}
	return b
}
