package mcpserver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Stateless serves every request without a session (for replicas behind
	// a load balancer); server→client requests are then unavailable.
	Stateless bool
	// AuthToken, when set, is required as "Authorization: Bearer <token>"
	// on /mcp (not on /health).
	AuthToken string
	// AllowedOrigins are extra browser origins (scheme://host[:port]) allowed
	// besides loopback ones. Requests with any other Origin get 403.
	AllowedOrigins []string
}

// DefaultHTTPAddr is where --http listens when given only a port.
const DefaultHTTPAddr = "127.0.0.1:8000"

// NormalizeAddr makes a loopback address of a bare port or ":port".
func NormalizeAddr(addr string) string {
	addr = strings.TrimSpace(addr)
	switch {
	case addr == "":
		return DefaultHTTPAddr
	case !strings.Contains(addr, ":"):
		return "127.0.0.1:" + addr
	case strings.HasPrefix(addr, ":"):
		return "127.0.0.1" + addr
	}
	return addr
}

// HTTPHandler serves MCP at /mcp (streamable HTTP) and GET /health.
// DNS-rebinding protection (Host on loopback connections) stays on, and
// browser requests from foreign origins are refused.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless: o.Stateless,
		Logger:    s.log,
	})
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok", "version": s.version, "mode": string(s.mode)})
	})
	mux.Handle("/mcp", s.guard(o, mcpHandler))
	return mux
}

func (s *Server) guard(o HTTPOptions, next http.Handler) http.Handler {
	allowed := map[string]bool{}
	for _, a := range o.AllowedOrigins {
		allowed[strings.TrimRight(strings.ToLower(a), "/")] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, allowed) {
			s.log.Warn("refused a request from a foreign origin", "origin", origin)
			httpError(w, http.StatusForbidden, jsonrpc.CodeInvalidRequest, "Forbidden: origin "+origin+" is not allowed (see --allowed-origins)")
			return
		}
		if o.AuthToken != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(o.AuthToken)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="ripple"`)
				httpError(w, http.StatusUnauthorized, jsonrpc.CodeInvalidRequest, "Unauthorized: send Authorization: Bearer <token>")
				return
			}
		}
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
			_ = r.Body.Close()
			if err != nil {
				httpError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: "+err.Error())
				return
			}
			if len(body) > mcp.DefaultMaxRequestBodyBytes {
				httpError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, "request body too large")
				return
			}
			trimmed := bytes.TrimSpace(body)
			switch {
			case !utf8.Valid(body):
				httpError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: message is not valid UTF-8")
				return
			case !json.Valid(trimmed):
				httpError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: invalid JSON")
				return
			case len(trimmed) > 0 && trimmed[0] == '{':
				if id, fwd, err := checkMessage(trimmed); err != nil {
					httpErrorID(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
					return
				} else if !fwd {
					w.WriteHeader(http.StatusAccepted) // a response nobody waits for
					return
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		next.ServeHTTP(w, r)
	})
}

func originAllowed(origin string, allowed map[string]bool) bool {
	if allowed[strings.TrimRight(strings.ToLower(origin), "/")] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func httpError(w http.ResponseWriter, status int, code int64, msg string) {
	httpErrorID(w, status, nil, code, msg)
}

func httpErrorID(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: code, Message: msg}})
}

// ServeHTTP listens on addr and serves h until ctx is done. ready, if not
// nil, receives the bound address (useful with port 0).
func ServeHTTP(ctx context.Context, addr string, h http.Handler, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", NormalizeAddr(addr))
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
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

// IsLoopbackAddr reports whether addr listens on loopback only.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(NormalizeAddr(addr))
	if err != nil {
		return false
	}
	return isLoopbackHost(host)
}
