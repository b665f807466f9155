package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/testfixtures"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// fixtureDir is the real jaffle_shop fixture (current/ and base/ builds)
// vendored in testdata/real, as an absolute path.
func fixtureDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(testfixtures.Real(t, "mrkidbk_test_dbt_jaffle_shop"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func fixturePaths(t testing.TB) dbt.Paths {
	return dbt.Paths{ProjectDir: fixtureDir(t), TargetPath: "current", TargetBasePath: "base"}
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type harness struct {
	srv  *Server
	logs *syncBuffer
}

func newHarness(t testing.TB, reg *ops.Registry, paths dbt.Paths, mode Mode) *harness {
	t.Helper()
	return newHarnessWith(t, Options{Registry: reg, Mode: mode, Toolsets: []string{ops.ToolsetAll}}, ops.Config{Paths: paths})
}

// newHarnessWith builds a server from o (Session, Version and Logger are
// set here) on a session configured by cfg.
func newHarnessWith(t testing.TB, o Options, cfg ops.Config) *harness {
	t.Helper()
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Logger = logger
	sess := ops.NewSession(cfg)
	t.Cleanup(func() { _ = sess.Close() })
	o.Session, o.Version, o.Logger = sess, "test", logger
	srv, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{srv: srv, logs: logs}
}

// connect opens an in-memory client session at the given protocol version
// ("" = the client's default, the stateless 2026-07-28 protocol).
func (h *harness) connect(t testing.TB, version string, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := h.srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes structuredContent into v and checks that the text
// copy is the same JSON.
func structured(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(text(res)), &b); err != nil {
		t.Fatalf("text content is not JSON: %v", err)
	}
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	if !bytes.Equal(ra, rb) {
		t.Fatalf("text copy differs from structuredContent:\n%s\n%s", ra, rb)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}

// Test operations exercising every server path.
type flagIn struct {
	Flag   bool   `json:"flag" jsonschema:"a boolean"`
	Select string `json:"select,omitempty"`
}
type flagOut struct {
	Flag bool `json:"flag"`
}
type emptyIn struct{}
type okOut struct {
	OK bool `json:"ok"`
}

// slowStarted and slowCanceled let tests observe the slow operation.
type slowProbe struct {
	started  chan struct{}
	canceled chan error
}

func testRegistry(probe *slowProbe) *ops.Registry {
	r := ops.NewRegistry()
	ops.Add(r, ops.Spec{Name: "echo_flag", Title: "Echo", Description: "Echo a flag."},
		func(_ context.Context, _ *ops.Session, in *flagIn) (*flagOut, error) {
			return &flagOut{Flag: in.Flag}, nil
		})
	ops.Add(r, ops.Spec{Name: "boom", Title: "Boom", Description: "Panics."},
		func(_ context.Context, _ *ops.Session, _ *emptyIn) (*okOut, error) { panic("kaboom") })
	ops.Add(r, ops.Spec{Name: "warehouse_thing", Title: "WH", Description: "Queries the warehouse.", Warehouse: true},
		func(_ context.Context, _ *ops.Session, _ *emptyIn) (*okOut, error) { return &okOut{OK: true}, nil })
	ops.Add(r, ops.Spec{Name: "write_thing", Title: "Write", Description: "Writes checks.", WritesState: true},
		func(_ context.Context, _ *ops.Session, _ *emptyIn) (*okOut, error) { return &okOut{OK: true}, nil })
	ops.Add(r, ops.Spec{Name: "diff_thing", Title: "Diff", Description: "Compares environments.", DiffTool: true},
		func(_ context.Context, _ *ops.Session, _ *emptyIn) (*okOut, error) { return &okOut{OK: true}, nil })
	ops.Add(r, ops.Spec{Name: "missing_table", Title: "Missing", Description: "Fails with a classified warehouse error."},
		func(_ context.Context, _ *ops.Session, _ *emptyIn) (*okOut, error) {
			return nil, warehouse.NewError(errors.New(`Catalog Error: Table with name foo does not exist!`), "select 1")
		})
	ops.Add(r, ops.Spec{Name: "plain_failure", Title: "Fail", Description: "Fails with an unclassified error."},
		func(_ context.Context, _ *ops.Session, _ *emptyIn) (*okOut, error) {
			return nil, errors.New("connection refused")
		})
	ops.Add(r, ops.Spec{Name: "needs_project", Title: "Project", Description: "Loads the project."},
		func(ctx context.Context, s *ops.Session, _ *emptyIn) (*okOut, error) {
			if _, err := s.Project(ctx); err != nil {
				return nil, err
			}
			return &okOut{OK: true}, nil
		})
	ops.Add(r, ops.Spec{Name: "slow", Title: "Slow", Description: "Reports progress and waits to be cancelled."},
		func(ctx context.Context, _ *ops.Session, _ *emptyIn) (*okOut, error) {
			ops.ReportProgress(ctx, 1, 2, "half way")
			if probe != nil {
				close(probe.started)
				<-ctx.Done()
				probe.canceled <- ctx.Err()
				return nil, ctx.Err()
			}
			ops.ReportProgress(ctx, 2, 2, "done")
			return &okOut{OK: true}, nil
		})
	return r
}

// rawConn drives ServeStdio with raw lines.
type rawConn struct {
	in  *io.PipeWriter
	out *bufio.Reader
	t   testing.TB
}

func (h *harness) rawStdio(t testing.TB) *rawConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- h.srv.ServeStdio(ctx, inR, outW)
		_ = outW.Close()
	}()
	rc := &rawConn{in: inW, out: bufio.NewReaderSize(outR, 1<<20), t: t}
	t.Cleanup(func() {
		_ = inW.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("ServeStdio did not return after stdin closed")
		}
		cancel()
	})
	return rc
}

func (r *rawConn) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

func (r *rawConn) recv() map[string]any {
	r.t.Helper()
	type res struct {
		line []byte
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := r.out.ReadBytes('\n')
		ch <- res{l, err}
	}()
	select {
	case got := <-ch:
		if got.err != nil {
			r.t.Fatalf("read: %v (session ended?)", got.err)
		}
		var m map[string]any
		if err := json.Unmarshal(got.line, &m); err != nil {
			var arr []any
			if json.Unmarshal(got.line, &arr) == nil {
				return map[string]any{"batch": arr}
			}
			r.t.Fatalf("server wrote a non-JSON line %q", got.line)
		}
		return m
	case <-time.After(10 * time.Second):
		r.t.Fatalf("no reply")
	}
	return nil
}

func (r *rawConn) initialize(version string) {
	r.t.Helper()
	r.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	m := r.recv()
	res, _ := m["result"].(map[string]any)
	if res == nil || res["protocolVersion"] != version {
		r.t.Fatalf("initialize: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	c, _ := e["code"].(float64)
	return c
}

// withoutFixtures drops the conformance fixtures (present only in builds
// with -tags conformance) from a listing.
func withoutFixtures[T any](items []T, name func(T) string) []T {
	out := items[:0:0]
	for _, it := range items {
		if !isFixture(name(it)) {
			out = append(out, it)
		}
	}
	return out
}
