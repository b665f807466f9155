package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ripple-data/ripple/internal/cli"
	"github.com/ripple-data/ripple/internal/demo"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/web"
)

var (
	demoOnce sync.Once
	demoRes  *demo.Result
	demoErr  error
	tmpRoot  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{tmpRoot, synthDir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// demoProject builds the demo project (DuckDB with both builds and their
// artifacts) once per test binary.
func demoProject(t testing.TB) *demo.Result {
	t.Helper()
	demoOnce.Do(func() {
		tmpRoot, demoErr = os.MkdirTemp("", "ripple-web-test-")
		if demoErr != nil {
			return
		}
		demoRes, demoErr = demo.Build(context.Background(), filepath.Join(tmpRoot, "demo"))
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoRes
}

// demoGlobals are the CLI flags that point at the demo, so the API and the
// CLI open the project and the warehouse the same way.
func demoGlobals(t testing.TB, withWarehouse bool) *cli.Globals {
	d := demoProject(t)
	g := &cli.Globals{
		ProjectDir: d.Paths.ProjectDir, TargetPath: d.Paths.TargetPath, TargetBasePath: d.Paths.TargetBasePath,
		StateFile: filepath.Join(t.TempDir(), "ripple_state.json"),
	}
	if withWarehouse {
		g.DuckDB = d.DBPath
	}
	return g
}

type testServer struct {
	*httptest.Server
	sess *ops.Session
	g    *cli.Globals
}

func startServer(t testing.TB, g *cli.Globals, o web.Options) *testServer {
	t.Helper()
	sess := g.NewSession(cli.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	ts := serveSession(t, sess, o)
	ts.g = g
	return ts
}

func serveSession(t testing.TB, sess *ops.Session, o web.Options) *testServer {
	t.Helper()
	t.Cleanup(func() { sess.Close() })
	o.Registry, o.Session = ops.Default(), sess
	srv, err := web.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return &testServer{Server: ts, sess: sess}
}

// call POSTs args to an operation and returns the status and decoded body.
func (ts *testServer) call(t testing.TB, op string, args any) (int, map[string]any) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return ts.do(t, http.MethodPost, "/api/ops/"+op, "application/json", raw, nil)
}

func (ts *testServer) do(t testing.TB, method, path, ctype string, body []byte, hdr http.Header) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s: %d, not a JSON object: %.300s", method, path, res.StatusCode, b)
	}
	return res.StatusCode, out
}

// runCLI runs `ripple <args> --json` in process with the same flags.
func runCLI(t testing.TB, g *cli.Globals, args ...string) []byte {
	t.Helper()
	full := []string{"--project-dir", g.ProjectDir, "--target-path", g.TargetPath, "--target-base-path", g.TargetBasePath, "--state-file", g.StateFile}
	if g.DuckDB != "" {
		full = append(full, "--duckdb", g.DuckDB)
	}
	full = append(append(full, args...), "--json")
	var out, errOut bytes.Buffer
	if code := cli.Run(context.Background(), full, cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != 0 {
		t.Fatalf("ripple %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
	}
	return out.Bytes()
}
