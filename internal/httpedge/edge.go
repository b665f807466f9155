// Package httpedge is the one HTTP edge of Ripple's servers (`ripple mcp
// --http` and `ripple serve`): the server's timeouts and header cap, the
// bounded, deadline-read request body, and the bearer token check, so both
// surfaces apply the same limits (docs/security.md, "Limits").
package httpedge

import (
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Limits of every Ripple HTTP server. A client must send its request
// headers within HeaderTimeout and its body within BodyTimeout; an idle
// keep-alive connection is closed after IdleTimeout. Responses have no
// deadline: a tool call or an operation streams its result for as long as
// it runs (the statement timeout bounds the warehouse's part).
const (
	HeaderTimeout  = 10 * time.Second
	BodyTimeout    = 30 * time.Second
	IdleTimeout    = 2 * time.Minute
	MaxHeaderBytes = 64 << 10
)

// NewServer returns the http.Server every Ripple listener runs.
func NewServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: HeaderTimeout, IdleTimeout: IdleTimeout, MaxHeaderBytes: MaxHeaderBytes}
}

// Serve serves h on ln until ctx is done, then shuts down within 5 s.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := NewServer(h)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
		return nil
	}
}

// ErrTooLarge is returned by ReadBody for a body over its limit.
var ErrTooLarge = errors.New("request body too large")

// ReadBody reads r's whole body, at most limit bytes, within timeout (0:
// BodyTimeout), and closes it. A slow client cannot hold the connection
// longer than that. The read deadline is cleared afterwards: a deadline left
// on the connection would cancel the request's context while the handler
// runs (net/http's background read fails on it).
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration) ([]byte, error) {
	if timeout <= 0 {
		timeout = BodyTimeout
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(timeout))
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	_ = r.Body.Close()
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, ErrTooLarge
	}
	return body, nil
}

// BearerToken returns the token of an "Authorization: Bearer <token>"
// header. The scheme is case-insensitive (RFC 9110, section 11.1).
func BearerToken(header string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// TokenEqual compares a presented secret with the expected one in
// constant time.
func TokenEqual(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
