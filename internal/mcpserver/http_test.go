package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/ops"
)

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func httpClient(t testing.TB, url, token string) *mcp.ClientSession {
	t.Helper()
	hc := http.DefaultClient
	if token != "" {
		hc = &http.Client{Transport: bearer{token, http.DefaultTransport}}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: hc},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func postRaw(t *testing.T, url string, body string, hdr map[string]string, host string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
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

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestHTTPStatefulAndStateless(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprint("stateless=", stateless), func(t *testing.T) {
			h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
			ts := httptest.NewServer(h.srv.HTTPHandler(HTTPOptions{Stateless: stateless}))
			t.Cleanup(ts.Close)
			resp, err := http.Get(ts.URL + "/health")
			if err != nil {
				t.Fatal(err)
			}
			var health map[string]string
			_ = json.NewDecoder(resp.Body).Decode(&health)
			resp.Body.Close()
			if resp.StatusCode != 200 || health["status"] != "ok" {
				t.Fatalf("health: %d %v", resp.StatusCode, health)
			}
			cs := httpClient(t, ts.URL, "")
			var out map[string]any
			structured(t, call(t, cs, "lineage_diff", map[string]any{}), &out)
			if out["changed_count"] != 1.0 || out["impacted_count"] != 3.0 {
				t.Errorf("lineage_diff over HTTP: %v", out)
			}
			res := call(t, cs, "lineage_diff", map[string]any{"view_mode": false})
			if !res.IsError || !strings.HasPrefix(text(res), "Input validation error: ") {
				t.Errorf("validation over HTTP: %q", text(res))
			}
		})
	}
}

func TestHTTPProtections(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	ts := httptest.NewServer(h.srv.HTTPHandler(HTTPOptions{AuthToken: "s3cret", AllowedOrigins: []string{"https://app.example.com"}}))
	t.Cleanup(ts.Close)
	auth := map[string]string{"Authorization": "Bearer s3cret"}

	if code, _ := postRaw(t, ts.URL, initBody, nil, ""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	if code, _ := postRaw(t, ts.URL, initBody, map[string]string{"Authorization": "Bearer wrong"}, ""); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", code)
	}
	if code, _ := postRaw(t, ts.URL, initBody, auth, "evil.example.com"); code != http.StatusForbidden {
		t.Errorf("DNS rebinding Host: %d", code)
	}
	if code, _ := postRaw(t, ts.URL, initBody, map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://evil.example.com"}, ""); code != http.StatusForbidden {
		t.Errorf("foreign Origin: %d", code)
	}
	for _, origin := range []string{"http://localhost:6274", "https://app.example.com"} {
		if code, body := postRaw(t, ts.URL, initBody, map[string]string{"Authorization": "Bearer s3cret", "Origin": origin}, ""); code != http.StatusOK {
			t.Errorf("allowed Origin %s: %d %s", origin, code, body)
		}
	}
	code, body := postRaw(t, ts.URL, `{"jsonrpc":"2.0",`, auth, "")
	if code != http.StatusBadRequest || !strings.Contains(body, `"code":-32700`) {
		t.Errorf("parse error: %d %s", code, body)
	}
	code, body = postRaw(t, ts.URL, `{"jsonrpc":"2.0","id":true,"method":"ping"}`, auth, "")
	if code != http.StatusBadRequest || !strings.Contains(body, `"code":-32600`) {
		t.Errorf("bad id: %d %s", code, body)
	}
	if resp, err := http.Get(ts.URL + "/health"); err != nil || resp.StatusCode != 200 {
		t.Errorf("health needs no token: %v %v", resp, err)
	}
	cs := httpClient(t, ts.URL, "s3cret")
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

func TestHTTPFiftyConcurrentClients(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	ts := httptest.NewServer(h.srv.HTTPHandler(HTTPOptions{}))
	t.Cleanup(ts.Close)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprint("c", i), Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			for range 5 {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lineage_diff", Arguments: map[string]any{}})
				if err != nil {
					errs <- err
					return
				}
				if res.IsError {
					errs <- fmt.Errorf("tool error: %s", text(res))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestNormalizeAddr(t *testing.T) {
	for in, want := range map[string]string{"": DefaultHTTPAddr, "9000": "127.0.0.1:9000", ":9000": "127.0.0.1:9000", "0.0.0.0:1": "0.0.0.0:1", "[::1]:5": "[::1]:5"} {
		if got := NormalizeAddr(in); got != want {
			t.Errorf("NormalizeAddr(%q) = %q, want %q", in, got, want)
		}
	}
	if !IsLoopbackAddr(":80") || IsLoopbackAddr("0.0.0.0:80") {
		t.Error("IsLoopbackAddr")
	}
}
