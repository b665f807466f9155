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
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ripple-data/ripple/internal/dbt"
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
}

// maxBody bounds request bodies (operation arguments are small JSON objects).
const maxBody = 1 << 20

// tokenCookie carries the token after /?token=… so the UI's own requests
// authenticate without putting the secret in every URL.
const tokenCookie = "ripple_serve_token"

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
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.o.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, r.URL.Path, http.StatusSeeOther)
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
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
	candidates := []string{r.URL.Query().Get("token")}
	if got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		candidates = append(candidates, strings.TrimSpace(got))
	}
	if c, err := r.Cookie(tokenCookie); err == nil {
		candidates = append(candidates, c.Value)
	}
	for _, c := range candidates {
		if c != "" && tokenEqual(c, s.o.Token) {
			return true
		}
	}
	return false
}

// ListenAndServe serves h on addr until ctx is done. ready, if not nil,
// receives the bound address (useful with port 0).
func ListenAndServe(ctx context.Context, addr string, h http.Handler, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (is another `ripple serve` running? pick another --port)", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(ln.Addr())
	}
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
