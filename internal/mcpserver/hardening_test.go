package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/open"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
)

// recvRaw reads one reply line as sent (recv decodes numbers as float64,
// which would hide the precision these tests are about).
func (r *rawConn) recvRaw() string {
	r.t.Helper()
	ch := make(chan string, 1)
	go func() {
		l, _ := r.out.ReadString('\n')
		ch <- l
	}()
	select {
	case l := <-ch:
		return strings.TrimSpace(l)
	case <-time.After(10 * time.Second):
		r.t.Fatal("no reply")
	}
	return ""
}

// Issue #19 defect 10 over stdio: ids beyond 2^53 come back exactly, errors
// before initialize have a JSON-RPC code, unknown log levels are refused.
func TestStdioProtocolEdges(t *testing.T) {
	h := newHarness(t, testRegistry(nil), fixturePaths(t), ModeServer)
	rc := h.rawStdio(t)

	rc.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if m := rc.recv(); errCode(m) != -32600 || !strings.Contains(fmt.Sprint(m["error"]), "initialize") {
		t.Errorf("tools/list before initialize: %v", m)
	}

	rc.send(`{"jsonrpc":"2.0","id":9007199254740993,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if l := rc.recvRaw(); !strings.Contains(l, `"id":9007199254740993`) || !strings.Contains(l, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize with a large id: %s", l)
	}
	rc.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, id := range []string{"-9007199254740993", "123456789012345678901234567890", "9007199254740992"} {
		rc.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if l := rc.recvRaw(); !strings.Contains(l, `"id":`+id+`,`) && !strings.HasSuffix(l, `"id":`+id+`}`) {
			t.Errorf("ping id %s came back as %s", id, l)
		}
	}
	rc.send(`{"jsonrpc":"2.0","id":"\u0000ripple-int-id:1","method":"ping"}`)
	if m := rc.recv(); errCode(m) != -32600 {
		t.Errorf("a marker-shaped string id must be refused: %v", m)
	}
	rc.send(`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`)
	if m := rc.recv(); errCode(m) != -32600 {
		t.Errorf("a non-integer literal id: %v", m)
	}

	rc.send(`{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel","params":{"level":"nonsense"}}`)
	if m := rc.recv(); errCode(m) != -32602 {
		t.Errorf("setLevel nonsense: %v", m)
	}
	rc.send(`{"jsonrpc":"2.0","id":"lvl2","method":"logging/setLevel","params":{"level":"warning"}}`)
	if m := rc.recv(); m["error"] != nil || m["id"] != "lvl2" {
		t.Errorf("setLevel warning: %v", m)
	}
}

// httpPost sends a raw POST to /mcp and returns status, content type and body.
func httpPost(t *testing.T, url, body string, hdr map[string]string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// jsonRPCError decodes an error reply (plain JSON or one SSE event).
func jsonRPCError(t *testing.T, body string) (code float64, msg string, id any) {
	t.Helper()
	if i := strings.Index(body, "data: "); i >= 0 {
		body = strings.TrimSpace(strings.SplitN(body[i+len("data: "):], "\n", 2)[0])
	}
	var m struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   *struct {
			Code    float64 `json:"code"`
			Message string  `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil {
		t.Fatalf("not a JSON-RPC error: %q (%v)", body, err)
	}
	return m.Error.Code, m.Error.Message, m.ID
}

// TestHTTPProtocolEdges is defect 10 over HTTP: JSON-RPC errors for bad
// bodies (also those the SDK answers in plain text), exact large ids, a
// case-insensitive Bearer scheme, Host and Origin checks on /health, which
// no longer tells the version.
func TestHTTPProtocolEdges(t *testing.T) {
	h := newHarness(t, testRegistry(nil), fixturePaths(t), ModeServer)
	ts := httptest.NewServer(h.srv.HTTPHandler(HTTPOptions{AuthToken: "s3cret"}))
	t.Cleanup(ts.Close)
	auth := map[string]string{"Authorization": "Bearer s3cret"}

	for _, scheme := range []string{"bearer", "BEARER", "Bearer"} {
		if code, _, body := httpPost(t, ts.URL, initBody, map[string]string{"Authorization": scheme + " s3cret"}); code != http.StatusOK {
			t.Errorf("%s: %d %s", scheme, code, body)
		}
	}
	for _, hv := range []string{"Basic s3cret", "Bearers3cret", "bearer wrong"} {
		if code, _, _ := httpPost(t, ts.URL, initBody, map[string]string{"Authorization": hv}); code != http.StatusUnauthorized {
			t.Errorf("%q accepted: %d", hv, code)
		}
	}

	for _, tc := range []struct {
		name, body string
		hdr        map[string]string
		status     int
		code       float64
	}{
		{"empty batch", `[]`, nil, 400, -32600},
		{"batch in 2025-11-25", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, 400, -32600},
		{"number", `5`, nil, 400, -32600},
		{"string", `"x"`, nil, 400, -32600},
		{"null", `null`, nil, 400, -32600},
		{"not json", `{"jsonrpc":`, nil, 400, -32700},
		{"no method", `{"jsonrpc":"2.0","id":3}`, nil, 400, -32600},
		// The SDK's own plain-text refusals become JSON-RPC errors too.
		{"no accept header", initBody, map[string]string{"Accept": ""}, 0, -32600},
		{"unknown session", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, map[string]string{"Mcp-Session-Id": "no-such-session"}, 404, -32600},
	} {
		hdr := map[string]string{"Authorization": "Bearer s3cret"}
		for k, v := range tc.hdr {
			hdr[k] = v
		}
		status, ctype, body := httpPost(t, ts.URL, tc.body, hdr)
		if tc.status != 0 && status != tc.status || status < 400 || !strings.HasPrefix(ctype, "application/json") {
			t.Errorf("%s: %d %s %q", tc.name, status, ctype, body)
			continue
		}
		if code, msg, _ := jsonRPCError(t, body); code != tc.code || msg == "" {
			t.Errorf("%s: code %v %q, want %v", tc.name, code, msg, tc.code)
		}
	}

	// A large id survives initialize over HTTP.
	big := strings.Replace(initBody, `"id":1`, `"id":9007199254740993`, 1)
	if _, _, body := httpPost(t, ts.URL, big, auth); !strings.Contains(body, `"id":9007199254740993`) {
		t.Errorf("large id over HTTP: %s", body)
	}

	// /health: the same Host and Origin checks as /mcp, no token, no version.
	get := func(hdr map[string]string, host string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/health", nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(nil, ""); code != 200 || strings.TrimSpace(body) != `{"status":"ok"}` {
		t.Errorf("health: %d %s", code, body)
	}
	if code, _ := get(nil, "evil.example.com"); code != http.StatusForbidden {
		t.Errorf("health with a foreign Host: %d", code)
	}
	if code, _ := get(map[string]string{"Origin": "http://evil.example.com"}, ""); code != http.StatusForbidden {
		t.Errorf("health with a foreign Origin: %d", code)
	}
}

// TestHTTPTrickledBodyTimesOut: a client that sends its body a byte at a
// time is cut off after the body timeout instead of holding the connection.
func TestHTTPTrickledBodyTimesOut(t *testing.T) {
	h := newHarness(t, testRegistry(nil), fixturePaths(t), ModeServer)
	ts := httptest.NewServer(h.srv.HTTPHandler(HTTPOptions{BodyTimeout: 300 * time.Millisecond}))
	t.Cleanup(ts.Close)
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n{", len(initBody))
	start := time.Now()
	done := make(chan string, 1)
	go func() {
		status, _ := bufio.NewReader(conn).ReadString('\n')
		done <- status
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case status := <-done:
			if time.Since(start) > 5*time.Second || !strings.Contains(status, "400") {
				t.Fatalf("after %v: %q", time.Since(start), status)
			}
			return
		case <-tick.C:
			_, _ = conn.Write([]byte(" ")) // one byte at a time, never the whole body
			if time.Since(start) > 10*time.Second {
				t.Fatal("the trickled body still holds the connection after 10 s")
			}
		}
	}
}

// TestHTTPClientGoneCancelsCall is defect 6 at the HTTP layer: a client that
// drops its request (handshake-era protocol, stateful or stateless) gets its
// tool call cancelled, so a warehouse query behind it stops too and does not
// hold a connection of the pool.
func TestHTTPClientGoneCancelsCall(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprint("stateless=", stateless), func(t *testing.T) {
			probe := &slowProbe{started: make(chan struct{}), canceled: make(chan error, 1)}
			h := newHarness(t, testRegistry(probe), fixturePaths(t), ModeServer)
			ts := httptest.NewServer(h.srv.HTTPHandler(HTTPOptions{Stateless: stateless}))
			// On failure the tool still blocks and Close would wait for it.
			t.Cleanup(func() {
				if !t.Failed() {
					ts.Close()
				}
			})
			hdr := map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
			if !stateless {
				req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(initBody))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				hdr["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
				resp.Body.Close()
				if code, _, body := httpPost(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr); code != http.StatusAccepted {
					t.Fatalf("initialized: %d %s", code, body)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/mcp",
				strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			go func() {
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			select {
			case <-probe.started:
			case <-time.After(10 * time.Second):
				t.Fatal("the slow tool never started")
			}
			cancel() // the client goes away
			select {
			case err := <-probe.canceled:
				if err == nil {
					t.Fatal("the tool saw no cancellation")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the tool call still runs 10 s after its client went away")
			}
		})
	}
}

// The HTTP server keeps serving ordinary sessions with every fix in place.
func TestHTTPFixesKeepSessionsWorking(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	ts := httptest.NewServer(h.srv.HTTPHandler(HTTPOptions{}))
	t.Cleanup(ts.Close)
	cs := httpClient(t, ts.URL, "")
	if res := call(t, cs, "get_server_info", map[string]any{}); res.IsError {
		t.Fatalf("get_server_info: %s", text(res))
	}
}

// TestServerInfoWarnsAboutSuperuser is defect 8's warning at the MCP layer:
// get_server_info lists what the warehouse login may do beyond reading.
func TestServerInfoWarnsAboutSuperuser(t *testing.T) {
	dsn := warehousetest.RequireEnv(t, "RIPPLE_TEST_POSTGRES_SUPER_DSN")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	port, _ := strconv.Atoi(u.Port())
	tg := profiles.Target{Type: "postgres", Host: u.Hostname(), Port: port, User: u.User.Username(), Password: pw,
		Database: strings.TrimPrefix(u.Path, "/"), Extra: map[string]any{"sslmode": "disable"}}
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	sess := ops.NewSession(ops.Config{Paths: fixturePaths(t), Logger: logger,
		OpenWarehouse: func(ctx context.Context, _ *dbt.Project) (warehouse.Conn, error) {
			return open.Open(ctx, tg, open.OpenOptions{ReadOnly: true})
		}})
	t.Cleanup(func() { _ = sess.Close() })
	srv, err := New(context.Background(), Options{Session: sess, Mode: ModeServer, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	cs := (&harness{srv: srv, logs: logs}).connect(t, "2025-11-25", nil)
	var info ServerInfo
	structured(t, call(t, cs, "get_server_info", map[string]any{}), &info)
	if len(info.Warnings) != 1 || !strings.Contains(info.Warnings[0], "a superuser") {
		t.Fatalf("warnings = %q", info.Warnings)
	}
	if !strings.Contains(logs.String(), "a superuser") {
		t.Errorf("the warning is not logged (stderr):\n%s", logs.String())
	}
	// The PR summary says it too, before the numbers (the fixture's tables
	// are not in this database: the data steps fail, the warning stays).
	sum, err := ops.Summary(context.Background(), sess, impact.Input{})
	if err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(sum.Markdown, "| | base | current |"); !strings.Contains(head, "a superuser") {
		t.Errorf("the summary does not open with the superuser warning:\n%s", sum.Markdown)
	}
}

// TestCompareObservedFileInputsReadOnlyMode is defect 4 where it was found:
// compare_observed over stdio in --mode read-only answers /dev/zero, a FIFO,
// the process's stdin and files outside the project with an error at once,
// and the session goes on.
func TestCompareObservedFileInputsReadOnlyMode(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeReadOnly)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	rc := h.rawStdio(t)
	rc.initialize("2025-11-25")
	for i, path := range []string{"/dev/zero", fifo, "/proc/self/fd/0", "/etc/hostname"} {
		rc.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"compare_observed","arguments":{"observed_file":%q}}}`, i, path))
		m := rc.recv()
		res, _ := m["result"].(map[string]any)
		if res == nil || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "outside the project directory") {
			t.Errorf("%s: %v", path, m)
		}
	}
	rc.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := rc.recv(); m["id"] != "p" || m["error"] != nil {
		t.Errorf("session after the probes: %v", m)
	}
}
