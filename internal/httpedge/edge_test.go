package httpedge

import (
	"net/http"
	"testing"

	_ "github.com/ripple-data/ripple/internal/golden"
)

// TestServerLimits: the server both `ripple serve` and `ripple mcp --http`
// run bounds headers and idle connections (bodies are bounded by ReadBody,
// tested through both servers' trickled-body tests).
func TestServerLimits(t *testing.T) {
	srv := NewServer(http.NotFoundHandler())
	if srv.ReadHeaderTimeout != HeaderTimeout || srv.IdleTimeout != IdleTimeout || srv.WriteTimeout != 0 || srv.MaxHeaderBytes != MaxHeaderBytes {
		t.Fatalf("header %v idle %v write %v header bytes %d", srv.ReadHeaderTimeout, srv.IdleTimeout, srv.WriteTimeout, srv.MaxHeaderBytes)
	}
}

func TestBearerToken(t *testing.T) {
	for _, tc := range []struct {
		header, want string
		ok           bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER  abc ", "abc", true},
		{"Basic abc", "", false},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"", "", false},
	} {
		got, ok := BearerToken(tc.header)
		if got != tc.want || ok != tc.ok {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tc.header, got, ok, tc.want, tc.ok)
		}
	}
	if TokenEqual("", "") {
		t.Error("an empty token matched")
	}
}
