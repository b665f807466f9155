package web_test

import (
	"context"
	"io"
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
		if c.Value == token {
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
