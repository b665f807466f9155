package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func (s *Server) sessionCount() int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

// TestHTTPSessionCapAndIdleTimeout is issue #27 item 8: concurrent sessions
// are capped with a clear JSON-RPC error when full, and an idle session
// closes, which frees its place.
func TestHTTPSessionCapAndIdleTimeout(t *testing.T) {
	h := newHarness(t, testRegistry(nil), fixturePaths(t), ModeServer)
	base := h.srv.sessionCount() // the harness's own in-memory client
	ts := httptest.NewServer(h.srv.HTTPHandler(HTTPOptions{MaxSessions: base + 2, SessionIdleTimeout: 300 * time.Millisecond}))
	t.Cleanup(ts.Close)
	for i := 0; i < 2; i++ {
		if code, body := postRaw(t, ts.URL, initBody, nil, ""); code != http.StatusOK {
			t.Fatalf("initialize %d: %d %s", i, code, body)
		}
	}
	code, body := postRaw(t, ts.URL, initBody, nil, "")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"code":-32603`) || !strings.Contains(body, "Server full") || !strings.Contains(body, "--max-sessions") {
		t.Fatalf("initialize beyond the cap: %d %s; want 503 with a JSON-RPC error naming --max-sessions", code, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.srv.sessionCount() > base {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still open 10 s after a 300 ms idle timeout", h.srv.sessionCount()-base)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, body := postRaw(t, ts.URL, initBody, nil, ""); code != http.StatusOK {
		t.Fatalf("initialize after the idle sessions closed: %d %s", code, body)
	}
}
