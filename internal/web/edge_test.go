package web_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/web"
)

// TestEdgeRules mirrors the MCP HTTP transport's rules: a loopback
// listener answers only loopback Host names (DNS rebinding), foreign
// origins are refused, same-origin and loopback origins are not.
func TestEdgeRules(t *testing.T) {
	ts := startServer(t, demoGlobals(t, false), web.Options{})
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	cases := []struct {
		name   string
		host   string
		origin string
		want   int
	}{
		{"plain", "", "", 200},
		{"localhost host", "localhost:" + port, "", 200},
		{"ipv6 loopback host", "[::1]:" + port, "", 200},
		{"rebinding host", "evil.example:" + port, "", 403},
		{"rebinding host without port", "evil.example", "", 403},
		{"loopback origin", "", "http://localhost:5173", 200},
		{"same origin", "", ts.URL, 200},
		{"foreign origin", "", "https://evil.example", 403},
		{"null origin", "", "null", 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", ts.URL+"/api/info", nil)
			if c.host != "" {
				req.Host = c.host
			}
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			res, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.want {
				t.Errorf("Host %q Origin %q: %d %s, want %d", c.host, c.origin, res.StatusCode, b, c.want)
			}
			if c.want == 403 && !strings.Contains(string(b), `"kind":"forbidden"`) {
				t.Errorf("refusal is not a JSON error: %s", b)
			}
		})
	}
}

func TestTokenRequired(t *testing.T) {
	const token = "s3cret-token"
	ts := startServer(t, demoGlobals(t, false), web.Options{Token: token})
	get := func(path string, hdr map[string]string, cookies ...*http.Cookie) *http.Response {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		for _, c := range cookies {
			req.AddCookie(c)
		}
		// Redirects are looked at, not followed.
		cl := *ts.Client()
		cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		res, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	if res := get("/api/info", nil); res.StatusCode != 401 || res.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("no token: %d, want 401 with WWW-Authenticate", res.StatusCode)
	}
	if res := get("/", nil); res.StatusCode != 401 {
		t.Errorf("the UI without a token: %d, want 401", res.StatusCode)
	}
	if res := get("/api/info", map[string]string{"Authorization": "Bearer wrong"}); res.StatusCode != 401 {
		t.Errorf("wrong token: %d, want 401", res.StatusCode)
	}
	if res := get("/api/info", map[string]string{"Authorization": "Bearer " + token}); res.StatusCode != 200 {
		t.Errorf("bearer token: %d, want 200", res.StatusCode)
	}
	if res := get("/?token=wrong", nil); res.StatusCode != 401 {
		t.Errorf("/?token=wrong: %d, want 401", res.StatusCode)
	}
	// Opening the printed address sets an HttpOnly cookie and drops the token from the URL.
	res := get("/?token="+token, nil)
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if strings.HasPrefix(c.Name, "ripple_serve_session_") {
			cookie = c
		}
	}
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" || cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("/?token=: %d Location %q cookie %+v, want 303 to / with an HttpOnly SameSite=Strict cookie", res.StatusCode, res.Header.Get("Location"), cookie)
	}
	if res := get("/api/info", nil, cookie); res.StatusCode != 200 {
		t.Errorf("cookie: %d, want 200", res.StatusCode)
	}
}

func TestAssets(t *testing.T) {
	ts := startServer(t, demoGlobals(t, false), web.Options{})
	get := func(path string) (*http.Response, string) {
		res, err := ts.Client().Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, string(b)
	}
	res, body := get("/")
	if res.StatusCode != 200 || !strings.Contains(body, `<div id="app">`) || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("/: %d %s %.200s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP = %q", csp)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("ETag") == "" {
		t.Errorf("headers = %v", res.Header)
	}
	if res, body := get("/assets/index.js"); res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") || len(body) < 1000 {
		t.Errorf("/assets/index.js: %d %s (%d bytes)", res.StatusCode, res.Header.Get("Content-Type"), len(body))
	}
	if res, _ := get("/assets/nothing.js"); res.StatusCode != 404 {
		t.Errorf("a missing asset: %d, want 404 (not index.html)", res.StatusCode)
	}
	if res, body := get("/checks"); res.StatusCode != 200 || !strings.Contains(body, `<div id="app">`) {
		t.Errorf("a screen path serves the UI: %d", res.StatusCode)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/", nil)
	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	if r, err := ts.Client().Do(req); err != nil || r.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation with the ETag: %v %v, want 304", r.StatusCode, err)
	}
}

// TestInfoNoticesChangedArtifacts: the top bar's reload prompt comes from
// artifacts_version, which moves when an artifact changes on disk.
func TestInfoNoticesChangedArtifacts(t *testing.T) {
	d := demoProject(t)
	dir := t.TempDir()
	for _, sub := range []string{d.Paths.TargetPath, d.Paths.TargetBasePath} {
		copyDir(t, filepath.Join(d.Paths.ProjectDir, sub), filepath.Join(dir, sub))
	}
	g := demoGlobals(t, false)
	g.ProjectDir = dir
	ts := startServer(t, g, web.Options{BaseStatus: func(context.Context) web.BaseStatus { return web.BaseStatus{Status: "stale", Reason: "test"} }})
	// The base status is evaluated in the background; the next poll has it.
	var a map[string]any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, a = ts.do(t, "GET", "/api/info", "", nil, nil); a["base_status"] != nil {
			break
		}
	}
	if a["project_name"] != "jaffle_shop" || a["adapter_type"] != "duckdb" || a["single_env"] != false || a["base_status"] == nil || a["base_status"].(map[string]any)["status"] != "stale" {
		t.Fatalf("/api/info = %v", a)
	}
	manifest := filepath.Join(dir, d.Paths.TargetPath, dbt.ManifestFile)
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(manifest, later, later); err != nil {
		t.Fatal(err)
	}
	_, b := ts.do(t, "GET", "/api/info", "", nil, nil)
	if b["artifacts_version"].(float64) != a["artifacts_version"].(float64)+1 {
		t.Errorf("artifacts_version %v → %v after the manifest changed, want +1", a["artifacts_version"], b["artifacts_version"])
	}
	// Without a base build: single-env banner data.
	if err := os.RemoveAll(filepath.Join(dir, d.Paths.TargetBasePath)); err != nil {
		t.Fatal(err)
	}
	_, c := ts.do(t, "GET", "/api/info", "", nil, nil)
	if c["single_env"] != true || !strings.Contains(c["single_env_warning"].(string), "target-base") {
		t.Errorf("single env /api/info = %v", c)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// TestTokenCookieTwoInstances is issue #27 item 4: the cookie /?token= sets
// holds no token, is named for the instance's port, and one instance's
// cookie neither logs in to nor out of another with the same token.
func TestTokenCookieTwoInstances(t *testing.T) {
	const token = "s3cret-token"
	g := demoGlobals(t, false)
	a := startServer(t, g, web.Options{Token: token})
	b := startServer(t, g, web.Options{Token: token})
	client := func(ts *testServer) *http.Client {
		cl := *ts.Client()
		cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		return &cl
	}
	login := func(ts *testServer) *http.Cookie {
		res, err := client(ts).Get(ts.URL + "/?token=" + token)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		cs := res.Cookies()
		port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
		if len(cs) != 1 || cs[0].Name != "ripple_serve_session_"+port || strings.Contains(cs[0].Value, token) || len(cs[0].Value) != 64 {
			t.Fatalf("cookies %+v; want one ripple_serve_session_%s cookie without the token", cs, port)
		}
		return cs[0]
	}
	ca, cb := login(a), login(b)
	status := func(ts *testServer, cookies ...*http.Cookie) int {
		req, _ := http.NewRequest("GET", ts.URL+"/api/info", nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		res, err := client(ts).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	// A browser sends both cookies to both ports.
	if got := status(a, ca, cb); got != 200 {
		t.Errorf("instance a with both cookies: %d", got)
	}
	if got := status(b, ca, cb); got != 200 {
		t.Errorf("instance b with both cookies: %d", got)
	}
	// a's cookie, renamed for b's port, is no session of b.
	forged := &http.Cookie{Name: cb.Name, Value: ca.Value}
	if got := status(b, forged); got != 401 {
		t.Errorf("instance b with a's session value: %d, want 401", got)
	}
	// The raw token in a cookie is no session either.
	if got := status(a, &http.Cookie{Name: ca.Name, Value: token}); got != 401 {
		t.Errorf("the raw token as cookie: %d, want 401", got)
	}
}

// TestTokenRedirectStaysLocal is item 5: after ?token= the browser is sent
// to a cleaned local path, never to another host.
func TestTokenRedirectStaysLocal(t *testing.T) {
	const token = "s3cret-token"
	ts := startServer(t, demoGlobals(t, false), web.Options{Token: token})
	for _, tc := range []struct{ path, want string }{
		{"//evil.example/", "/evil.example"},
		{"/%5Cevil.example", "/"},
		{"/%5C%5Cevil.example", "/"},
		{"/./%2F/evil.example", "/evil.example"},
		{"/checks/../lineage", "/lineage"},
		{"/", "/"},
	} {
		// Sent raw: an HTTP client would clean or re-read the path.
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET %s?token=%s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", tc.path, token)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		conn.Close()
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != tc.want {
			t.Errorf("%s?token=: %d Location %q; want 303 to %q", tc.path, res.StatusCode, res.Header.Get("Location"), tc.want)
		}
	}
}

// TestBearerSchemeCaseInsensitive is item 10: RFC 9110 makes the scheme
// case-insensitive, as the MCP server already reads it.
func TestBearerSchemeCaseInsensitive(t *testing.T) {
	const token = "s3cret-token"
	ts := startServer(t, demoGlobals(t, false), web.Options{Token: token})
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		req, _ := http.NewRequest("GET", ts.URL+"/api/info", nil)
		req.Header.Set("Authorization", scheme+" "+token)
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("Authorization: %s <token>: %d, want 200", scheme, res.StatusCode)
		}
	}
}

// TestTrickledBodyTimesOut is item 6: a client that sends its body a byte
// at a time is cut off after the body timeout (the edge shared with the
// MCP server) instead of holding the connection.
func TestTrickledBodyTimesOut(t *testing.T) {
	ts := startServer(t, demoGlobals(t, false), web.Options{BodyTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/ops/get_model HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
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
			_, _ = conn.Write([]byte(" "))
			if time.Since(start) > 10*time.Second {
				t.Fatal("the trickled body still holds the connection after 10 s")
			}
		}
	}
}

// TestSessionFunctionRefusedThroughAPI is issue #27 item 1 through the web
// API: enable_profiling is refused, and the query after it runs normally
// (before, every later query on that pooled connection failed).
func TestSessionFunctionRefusedThroughAPI(t *testing.T) {
	ts := startServer(t, demoGlobals(t, true), web.Options{})
	status, out := ts.call(t, "query", map[string]any{"sql_template": "select * from enable_profiling(format => 'json', save_location => '/nonexistent/x.json')"})
	if status == 200 || !strings.Contains(fmt.Sprint(out), "enable_profiling") || !strings.Contains(fmt.Sprint(out), "table function") {
		t.Fatalf("enable_profiling through the API: %d %v; want a refusal naming the table function", status, out)
	}
	for i := 0; i < 3; i++ {
		if status, out := ts.call(t, "query", map[string]any{"sql_template": "select count(*) as n from {{ ref('orders') }}"}); status != 200 {
			t.Fatalf("query %d after the refusal: %d %v", i, status, out)
		}
	}
}
