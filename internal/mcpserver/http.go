package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/httpedge"
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
	// BodyTimeout bounds reading a request body (0: 30 s).
	BodyTimeout time.Duration
	// SessionIdleTimeout closes a session (and its SSE stream) that sent
	// no request for this long (0: DefaultSessionIdleTimeout; negative:
	// never). A client whose session expired gets 404 and initializes
	// again, as the protocol says.
	SessionIdleTimeout time.Duration
	// MaxSessions caps concurrent sessions (0: DefaultMaxSessions;
	// negative: no cap). An initialize beyond it gets 503 with a JSON-RPC
	// error saying so.
	MaxSessions int
}

// Session limits of the stateful HTTP transport.
const (
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultMaxSessions        = 100
)

func (o HTTPOptions) sessionIdleTimeout() time.Duration {
	switch {
	case o.SessionIdleTimeout == 0:
		return DefaultSessionIdleTimeout
	case o.SessionIdleTimeout < 0:
		return 0
	}
	return o.SessionIdleTimeout
}

func (o HTTPOptions) maxSessions() int {
	if o.MaxSessions == 0 {
		return DefaultMaxSessions
	}
	return o.MaxSessions
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

func (o HTTPOptions) bodyTimeout() time.Duration {
	if o.BodyTimeout > 0 {
		return o.BodyTimeout
	}
	return httpedge.BodyTimeout
}

// HTTPHandler serves MCP at /mcp (streamable HTTP) and GET /health.
// DNS-rebinding protection (Host on loopback connections) stays on, and
// browser requests from foreign origins are refused, on both paths.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless: o.Stateless,
		Logger:    s.log,
		// A dropped HTTP request cancels its tool call (2026-07-28
		// protocol; older ones are cancelled by the guard, see cancelOrphan).
		PropagateRequestCancellation: true,
		SessionTimeout:               o.sessionIdleTimeout(),
	})
	mux := http.NewServeMux()
	// /health says only that the server is up: no version or mode for a
	// scanner to fingerprint.
	mux.Handle("/health", s.guard(o, false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok"}`+"\n")
	})))
	mux.Handle("/mcp", s.guard(o, true, mcpHandler))
	return mux
}

// guard checks Origin, Host and (on /mcp) the token, validates POST bodies
// as JSON-RPC (answering bad ones with JSON-RPC errors, as the SDK does
// not), maps ids the SDK would round, and cancels the tool call of a client
// that went away.
func (s *Server) guard(o HTTPOptions, isMCP bool, next http.Handler) http.Handler {
	// initMu makes counting the sessions and creating one a single step, so
	// concurrent initializes cannot pass the cap together.
	var initMu sync.Mutex
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
		if !hostAllowed(r) {
			s.log.Warn("refused a request for a foreign host on a loopback address (DNS rebinding?)", "host", r.Host)
			httpError(w, http.StatusForbidden, jsonrpc.CodeInvalidRequest, "Forbidden: host "+r.Host+" is not a loopback name")
			return
		}
		if !isMCP {
			next.ServeHTTP(w, r)
			return
		}
		if o.AuthToken != "" && !tokenOK(r.Header.Get("Authorization"), o.AuthToken) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ripple"`)
			httpError(w, http.StatusUnauthorized, jsonrpc.CodeInvalidRequest, "Unauthorized: send Authorization: Bearer <token>")
			return
		}
		var call *pendingCall
		if r.Method == http.MethodPost {
			var ok bool
			if call, ok = s.readBody(w, r, o.bodyTimeout()); !ok {
				return
			}
		}
		if o.Stateless {
			// A stateless request's session is the request: its tool call
			// ends with it (see cancelWithRequest).
			r = r.WithContext(context.WithValue(r.Context(), requestDoneKey{}, r.Context().Done()))
		}
		if call != nil && call.method == "initialize" && !o.Stateless && o.maxSessions() > 0 && r.Header.Get("Mcp-Session-Id") == "" {
			initMu.Lock()
			defer initMu.Unlock()
			n := 0
			for range s.mcp.Sessions() {
				n++
			}
			if n >= o.maxSessions() {
				s.log.Warn("refused a new MCP session: the server is full", "sessions", n)
				w.Header().Set("Retry-After", "60")
				httpErrorID(w, http.StatusServiceUnavailable, call.replyID, jsonrpc.CodeInternalError,
					fmt.Sprintf("Server full: %d MCP sessions are open, the most this server keeps (idle ones close after %s); close unused clients (DELETE their session), retry later, or raise --max-sessions", n, o.sessionIdleTimeout()))
				return
			}
		}
		ew := &jsonErrorWriter{ResponseWriter: w}
		if call != nil {
			ew.id = call.replyID
		}
		next.ServeHTTP(ew, r)
		ew.finish()
		if call != nil && call.method != "" && call.method != "initialize" && r.Context().Err() != nil {
			s.cancelOrphan(next, r, call.sdkID)
		}
	})
}

// pendingCall is the request a single-message POST carries.
type pendingCall struct {
	replyID json.RawMessage // the client's id, for error replies
	sdkID   json.RawMessage // the id as the SDK sees it (see mapBigID)
	method  string          // "" for a notification or response
}

// readBody reads and checks a POST body (within timeout) and puts it
// back on r for the SDK, with large ids mapped. It answers bad bodies itself
// and then returns ok=false.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, timeout time.Duration) (*pendingCall, bool) {
	body, err := httpedge.ReadBody(w, r, mcp.DefaultMaxRequestBodyBytes, timeout)
	if errors.Is(err, httpedge.ErrTooLarge) {
		httpError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, "request body too large")
		return nil, false
	}
	if err != nil {
		httpError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: reading the request body: "+err.Error())
		return nil, false
	}
	trimmed := bytes.TrimSpace(body)
	var call *pendingCall
	switch {
	case !utf8.Valid(body):
		httpError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: message is not valid UTF-8")
		return nil, false
	case !json.Valid(trimmed):
		httpError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: invalid JSON")
		return nil, false
	case trimmed[0] == '{':
		id, fwd, err := checkMessage(trimmed)
		if err != nil {
			httpErrorID(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
			return nil, false
		}
		if !fwd {
			w.WriteHeader(http.StatusAccepted) // a response nobody waits for
			return nil, false
		}
		trimmed = mapBigID(trimmed)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(trimmed, &m)
		call = &pendingCall{replyID: id}
		if len(m.ID) > 0 {
			call.sdkID, call.method = m.ID, m.Method
		}
	case trimmed[0] == '[':
		var elems []json.RawMessage
		_ = json.Unmarshal(trimmed, &elems)
		if len(elems) == 0 {
			httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: empty batch")
			return nil, false
		}
		if v := r.Header.Get("Mcp-Protocol-Version"); v == "" || v >= "2025-06-18" {
			httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported from protocol version 2025-06-18 on; send one message per request")
			return nil, false
		}
		for i, e := range elems {
			if _, _, err := checkMessage(e); err != nil {
				httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: batch element %d: %v", i, err))
				return nil, false
			}
			elems[i] = mapBigID(e)
		}
		trimmed, _ = json.Marshal(elems)
	default:
		httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: a JSON-RPC message must be an object")
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(trimmed))
	r.ContentLength = int64(len(trimmed))
	return call, true
}

// cancelOrphan tells the session that the client of request id went away,
// so the tool call (and its warehouse query, which the adapters cancel on
// the server) stops instead of holding a connection of the pool.
func (s *Server) cancelOrphan(next http.Handler, r *http.Request, id json.RawMessage) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		return // stateless: the request's session ends with it
	}
	body := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) + `,"reason":"the HTTP client went away"}}`
	req, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), http.MethodPost, r.URL.String(), strings.NewReader(body))
	if err != nil {
		return
	}
	req.Host = r.Host
	for _, h := range []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Authorization"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	s.log.Info("HTTP client went away; cancelling its request", "id", string(id))
	next.ServeHTTP(discard{http.Header{}}, req)
}

// requestDoneKey carries a stateless HTTP request's Done channel into the
// SDK, which keeps context values (not cancellation) of the request that
// created a session.
type requestDoneKey struct{}

// cancelWithRequest cancels a request's handling when the stateless HTTP
// request that carried it ends (the client went away); the SDK does not.
func cancelWithRequest(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		done, _ := ctx.Value(requestDoneKey{}).(<-chan struct{})
		if done == nil {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-done:
				cancel()
			case <-ctx.Done():
			}
		}()
		return next(ctx, method, req)
	}
}

// discard is a ResponseWriter for internal requests nobody reads.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(p []byte) (int, error) { return len(p), nil }
func (d discard) WriteHeader(int)             {}

// jsonErrorWriter fixes the SDK's output on the way out: ids and error
// codes (fixSSE), and plain-text error bodies, which it turns into JSON-RPC
// error objects so every answer of /mcp is JSON-RPC.
type jsonErrorWriter struct {
	http.ResponseWriter
	id     json.RawMessage
	status int // a captured plain-text error
	buf    bytes.Buffer
}

func (w *jsonErrorWriter) WriteHeader(code int) {
	if code >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *jsonErrorWriter) Write(p []byte) (int, error) {
	if w.status != 0 {
		return w.buf.Write(p)
	}
	if _, err := w.ResponseWriter.Write(fixSSE(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *jsonErrorWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *jsonErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *jsonErrorWriter) finish() {
	if w.status == 0 {
		return
	}
	code := int64(jsonrpc.CodeInvalidRequest)
	if w.status >= 500 {
		code = jsonrpc.CodeInternalError
	}
	w.Header().Del("X-Content-Type-Options")
	httpErrorID(w.ResponseWriter, w.status, w.id, code, strings.TrimSpace(w.buf.String()))
}

// tokenOK compares an Authorization header with the token: the scheme is
// case-insensitive (RFC 9110), the token compared in constant time.
func tokenOK(header, token string) bool {
	got, ok := httpedge.BearerToken(header)
	return ok && httpedge.TokenEqual(got, token)
}

// hostAllowed refuses, on a connection to a loopback address, a Host that
// is not a loopback name: a browser tricked by DNS rebinding sends the
// attacker's host name.
func hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return true
	}
	ta, ok := local.(*net.TCPAddr)
	if !ok || !ta.IP.IsLoopback() {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return isLoopbackHost(strings.Trim(host, "[]"))
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
	if ready != nil {
		ready(ln.Addr())
	}
	return httpedge.Serve(ctx, ln, h)
}

// IsLoopbackAddr reports whether addr listens on loopback only.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(NormalizeAddr(addr))
	if err != nil {
		return false
	}
	return isLoopbackHost(host)
}
