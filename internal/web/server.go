// Package web is `ripple serve`: the review in a browser. One HTTP server
// holds one ops.Session and exposes every registry operation as
// POST /api/ops/<name> (same input and result structs as the CLI's --json and
// the MCP tools), plus GET /api/info for the top bar and the embedded UI
// (built from web/ into dist/, so `go build` needs no Node).
//
// The edge follows the rules of the MCP HTTP transport: loopback Host on
// loopback connections (DNS rebinding), no foreign Origin, a bearer token
// when one is configured (required off loopback), bounded JSON bodies.
package web

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/httpedge"
	"github.com/ripple-data/ripple/internal/ops"
)

// Options configure the server.
type Options struct {
	Registry *ops.Registry
	Session  *ops.Session
	// ReadOnly refuses (and the UI hides) the operations that write the
	// checks state: create, run, approve, reorder and delete checks.
	ReadOnly bool
	// Token, when set, is required on every request, as
	// "Authorization: Bearer <token>" or as the cookie that opening
	// /?token=<token> sets.
	Token string
	// BaseStatus tells whether the base artifacts are fresh (the rule of
	// `ripple check-base`); nil leaves the staleness warning out.
	BaseStatus func(ctx context.Context) BaseStatus
	Version    string
	Logger     *slog.Logger
	// BodyTimeout bounds reading a request body (0: httpedge.BodyTimeout).
	BodyTimeout time.Duration
}

// Server is the HTTP handler of `ripple serve`.
type Server struct {
	o      Options
	mux    *http.ServeMux
	assets *assets

	mu       sync.Mutex
	loaded   *dbt.Project // the last project seen, to count reloads
	gen      int
	baseAt   time.Time
	baseGen  int
	baseStat *BaseStatus
	baseBusy bool

	// session is the cookie value /?token= sets: derived from the token and
	// a random value of this instance, so the raw token never sits in a
	// cookie (browsers send cookies to every port of a host) and another
	// instance's cookie does not log this one in or out.
	session string
}

// maxBody bounds request bodies (operation arguments are small JSON objects).
const maxBody = 1 << 20

// cookiePrefix names the session cookie that /?token=… sets, so the UI's
// own requests authenticate without the secret in every URL. The port
// follows, because cookies ignore ports: two instances on one host keep
// their own cookies.
const cookiePrefix = "ripple_serve_session_"

// cookieName is the session cookie's name for the listener r came in on.
func cookieName(r *http.Request) string {
	port := "0"
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && la != nil {
		if _, p, err := net.SplitHostPort(la.String()); err == nil {
			port = p
		}
	}
	return cookiePrefix + port
}

// localPath returns the cleaned local path to send a browser to after
// /?token=: never a scheme-relative URL (//evil.example/) or a path a
// browser reads as one (/\evil.example).
func localPath(p string) string {
	p = path.Clean("/" + p)
	if strings.ContainsAny(p, "\\\x00\r\n\t") || strings.HasPrefix(p, "//") {
		return "/"
	}
	return (&url.URL{Path: p}).EscapedPath()
}

// New builds the server around a session.
func New(o Options) (*Server, error) {
	if o.Registry == nil || o.Session == nil {
		return nil, errors.New("web: a registry and a session are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	s := &Server{o: o, mux: http.NewServeMux(), assets: a}
	if o.Token != "" {
		nonce := make([]byte, 32)
		if _, err := rand.Read(nonce); err != nil {
			return nil, fmt.Errorf("web: drawing a session key: %w", err)
		}
		mac := hmac.New(sha256.New, []byte(o.Token))
		mac.Write(nonce)
		s.session = hex.EncodeToString(mac.Sum(nil))
	}
	s.mux.HandleFunc("GET /api/info", s.handleInfo)
	s.mux.HandleFunc("POST /api/ops/{name}", s.handleOp)
	s.mux.HandleFunc("POST /api/ui/lineage", s.handleLineage)
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no API endpoint "+r.Method+" "+r.URL.Path+" (operations are POST /api/ops/<name>)")
	})
	s.mux.HandleFunc("/", s.handleAsset)
	go s.warm()
	return s, nil
}

// warm loads the artifacts, compares them and evaluates the base status
// while the user opens the browser, so the first page does not wait for it.
func (s *Server) warm() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := s.o.Session.Project(ctx)
	if err != nil {
		return // /api/info reports the load error
	}
	s.baseStatus(s.generation(p))
	_, _ = s.o.Session.Comparison(ctx)
}

// ServeHTTP applies the edge rules, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "+
		"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	if status, kind, msg := s.refuse(r); status != 0 {
		if status == http.StatusUnauthorized {
			h.Set("WWW-Authenticate", `Bearer realm="ripple"`)
		}
		s.o.Logger.Warn("refused a request", "status", status, "reason", msg, "path", r.URL.Path)
		writeError(w, status, kind, msg)
		return
	}
	if s.o.Token != "" && r.URL.Query().Get("token") != "" && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") {
		// The token was right (refuse checked it): keep it in a cookie and
		// drop it from the address bar and history.
		http.SetCookie(w, &http.Cookie{Name: cookieName(r), Value: s.session, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, localPath(r.URL.Path), http.StatusSeeOther)
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		// The shared edge: the body arrives within the body timeout and
		// under the size cap, or the request is refused.
		body, err := httpedge.ReadBody(w, r, maxBody, s.o.BodyTimeout)
		switch {
		case errors.Is(err, httpedge.ErrTooLarge):
			writeError(w, http.StatusRequestEntityTooLarge, "input", fmt.Sprintf("request body larger than %d bytes", maxBody))
			return
		case err != nil:
			writeError(w, http.StatusBadRequest, "bad_request", "reading the request body: "+err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	s.mux.ServeHTTP(w, r)
}

// refuse returns a non-zero status when the request must not be served.
func (s *Server) refuse(r *http.Request) (int, string, string) {
	// DNS rebinding: a page on evil.example resolved to 127.0.0.1 reaches a
	// loopback listener with Host evil.example.
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && la != nil {
		if isLoopback(la.String()) && !isLoopback(r.Host) {
			return http.StatusForbidden, "forbidden", fmt.Sprintf("Forbidden: invalid Host header %q (open the UI at http://127.0.0.1 or http://localhost)", r.Host)
		}
	}
	if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, r.Host) {
		return http.StatusForbidden, "forbidden", "Forbidden: origin " + origin + " is not allowed"
	}
	if s.o.Token != "" && !s.authorized(r) {
		return http.StatusUnauthorized, "unauthorized", "Unauthorized: open the address `ripple serve` printed (it carries ?token=), or send Authorization: Bearer <RIPPLE_SERVE_TOKEN>"
	}
	return 0, "", ""
}

func (s *Server) authorized(r *http.Request) bool {
	if httpedge.TokenEqual(r.URL.Query().Get("token"), s.o.Token) {
		return true
	}
	if got, ok := httpedge.BearerToken(r.Header.Get("Authorization")); ok && httpedge.TokenEqual(got, s.o.Token) {
		return true
	}
	c, err := r.Cookie(cookieName(r))
	return err == nil && httpedge.TokenEqual(c.Value, s.session)
}

// ListenAndServe serves h on addr until ctx is done. ready, if not nil,
// receives the bound address (useful with port 0).
func ListenAndServe(ctx context.Context, addr string, h http.Handler, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (is another `ripple serve` running? pick another --port)", addr, err)
	}
	if ready != nil {
		ready(ln.Addr())
	}
	return httpedge.Serve(ctx, ln, h)
}
