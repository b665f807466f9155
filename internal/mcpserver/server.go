// Package mcpserver serves every operation of the ops registry as an MCP
// tool. Tools are generated from the registry: an operation added with
// ops.Add appears here with its input schema, output schema and description,
// and returns the same JSON as `ripple <op-name> --json`. The only
// MCP-specific tools are get_server_info and set_backend.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// Mode gates which tools are exposed.
type Mode string

const (
	// ModeServer exposes every operation.
	ModeServer Mode = "server"
	// ModePreview exposes only operations that do not query the warehouse.
	ModePreview Mode = "preview"
	// ModeReadOnly is preview without operations that write the checks state.
	ModeReadOnly Mode = "read-only"
)

// ParseMode validates a --mode value ("" means server).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeServer:
		return ModeServer, nil
	case ModePreview, ModeReadOnly:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown mode %q: use server, preview or read-only", s)
}

// SingleEnvNote is appended to the description of every diff tool when no
// base build exists.
const SingleEnvNote = "Single-environment mode: the base environment is not configured, so this tool compares the " +
	"current environment against itself (base equals current; no changes expected). " +
	"Run `dbt docs generate --target-path target-base` on the base branch to enable diffing."

// SingleEnvInstructions are the initialize instructions in single-environment mode.
const SingleEnvInstructions = "Ripple is running in single-environment mode: the base environment (target-base/) is not " +
	"configured, so the diff tools compare the current environment against itself and show no changes. " +
	"To enable diffing, build the base branch's artifacts with `dbt docs generate --target-path target-base` " +
	"(or point at them with set_backend target_base_path)."

// Options configure a Server.
type Options struct {
	// Registry is the catalogue to serve; nil means ops.Default().
	Registry *ops.Registry
	// Session is the operation session shared by every MCP session. Required.
	Session *ops.Session
	Mode    Mode
	// Toolsets name the toolsets to serve (see ops.Toolsets; "all" for
	// every tool); empty means ops.DefaultToolsets().
	Toolsets []string
	Version  string
	// Logger receives server logs (stderr or a file, never stdout).
	Logger *slog.Logger
	// MaxReplyBytes caps each tool result on the wire (text content and
	// structuredContent together): 0 means DefaultMaxReplyBytes, a negative
	// value no cap. Warehouse queries stop reading rows at half of it, and
	// rows of larger results are cut (see boundReply).
	MaxReplyBytes int64
}

// Server is Ripple's MCP server.
type Server struct {
	reg     *ops.Registry
	extra   *ops.Registry // MCP-only tools
	sess    *ops.Session
	mode    Mode
	version string
	log     *slog.Logger
	// maxReply is the resolved reply cap (-1: none).
	maxReply int64
	mcp      *mcp.Server
	// toolsets are the toolsets served and inToolset their tools.
	toolsets  []string
	inToolset map[string]bool

	mu        sync.Mutex
	tools     map[string]*ops.Op // name → op, exposed tools only
	singleEnv bool

	// fixtureTools are the conformance suite's fixture tools, registered
	// on the SDK server directly; written only by New, and empty unless
	// built with -tags conformance (see conformance_fixtures.go).
	fixtureTools map[string]bool
}

// New builds the server. It never fails because artifacts are missing: the
// server starts, get_server_info says why, and the other tools explain how
// to fix it.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.Session == nil {
		return nil, errors.New("mcpserver: Options.Session is required")
	}
	if o.Registry == nil {
		o.Registry = ops.Default()
	}
	mode, err := ParseMode(string(o.Mode))
	if err != nil {
		return nil, err
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if len(o.Toolsets) == 0 {
		o.Toolsets = ops.DefaultToolsets()
	}
	inToolset, err := ops.ResolveToolsets(o.Toolsets)
	if err != nil {
		return nil, err
	}
	s := &Server{reg: o.Registry, sess: o.Session, mode: mode, version: o.Version, log: o.Logger, toolsets: o.Toolsets, inToolset: inToolset,
		maxReply: maxReply(o.MaxReplyBytes)}
	s.extra = s.mcpOnlyOps()
	for _, op := range s.extra.Ops() {
		if _, clash := s.reg.Get(op.Name); clash {
			return nil, fmt.Errorf("mcpserver: operation %s clashes with an MCP-only tool", op.Name)
		}
	}

	single := s.detectSingleEnv(ctx)
	if _, err := s.sess.Project(ctx); err != nil {
		s.log.Warn("artifacts could not be loaded; the server starts anyway, call set_backend or rebuild them", "error", err)
	}
	if single {
		s.log.Warn("base artifacts not found, starting in single-environment mode", "hint", "dbt docs generate --target-path target-base")
	}
	instructions := ""
	if single {
		instructions = SingleEnvInstructions
	}
	sopts := &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       slog.New(minLevel{o.Logger.Handler(), slog.LevelWarn}),
		Capabilities: &mcp.ServerCapabilities{
			//lint:ignore SA1019 logging is part of every handshake-era protocol version served
			Logging:   loggingCapability(),
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
		},
	}
	s.fixtureOptions(sopts)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "ripple", Title: "Ripple", Version: o.Version}, sopts)
	s.mcp.AddReceivingMiddleware(s.middleware, validateLogLevel, cancelWithRequest)
	s.registerTools(single)
	s.registerResources()
	s.registerApp()
	s.registerPrompts()
	s.registerFixtures()
	return s, nil
}

// MCP returns the underlying SDK server (for custom transports and tests).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Mode is the server's mode.
func (s *Server) Mode() Mode { return s.mode }

// detectSingleEnv reports whether the current build exists without a base
// build (the peer's single-environment mode).
func (s *Server) detectSingleEnv(ctx context.Context) bool {
	if p, err := s.sess.Project(ctx); err == nil {
		return p.SingleEnv
	}
	paths := s.sess.Config().Paths
	_, cerr := os.Stat(filepath.Join(paths.CurrentDir(), dbt.ManifestFile))
	_, berr := os.Stat(filepath.Join(paths.BaseDir(), dbt.ManifestFile))
	return cerr == nil && errors.Is(berr, os.ErrNotExist)
}

// exposed reports whether op is served: in a served toolset (an operation
// in no toolset, e.g. of a custom registry, is always served) and allowed by
// the mode.
func (s *Server) exposed(op *ops.Op) bool {
	if !s.inToolset[op.Name] && ops.InAnyToolset(op.Name) {
		return false
	}
	return s.modeAllows(op)
}

func (s *Server) modeAllows(op *ops.Op) bool {
	switch s.mode {
	case ModePreview:
		return !op.Warehouse
	case ModeReadOnly:
		return !op.Warehouse && !op.WritesState
	}
	return true
}

// registerTools (re)registers every exposed tool; it runs at start and
// after set_backend, whose new paths may switch single-environment mode.
func (s *Server) registerTools(single bool) {
	s.mu.Lock()
	s.singleEnv = single
	s.tools = map[string]*ops.Op{}
	var list []*ops.Op
	for _, op := range s.reg.Ops() {
		if s.exposed(op) {
			list = append(list, op)
		}
	}
	list = append(list, s.extra.Ops()...)
	for _, op := range list {
		s.tools[op.Name] = op
	}
	s.mu.Unlock()
	// Build every tool before adding any, so that the additions land
	// within the SDK's list_changed debounce window.
	tools := make([]*mcp.Tool, len(list))
	for i, op := range list {
		tools[i] = s.toolFor(op, single)
	}
	for i, op := range list {
		s.mcp.AddTool(tools[i], s.handler(op))
	}
}

func (s *Server) toolFor(op *ops.Op, single bool) *mcp.Tool {
	desc := op.Description
	if single && op.DiffTool {
		desc = strings.TrimSpace(desc) + " " + SingleEnvNote
	}
	readOnly := !op.WritesState && op.Name != "set_backend"
	f := false
	ann := &mcp.ToolAnnotations{ReadOnlyHint: readOnly, OpenWorldHint: &f}
	if !readOnly {
		// A non-read-only tool says whether repeating a call is harmless;
		// creating a check is idempotent on type and params.
		ann.IdempotentHint = op.Name == "create_check" || op.Name == "set_backend"
	}
	out := wireOutputSchema(op.OutputSchema(), op.OutputType())
	if appOnly(op.Name) {
		// Only the review app reads it (the shape of lineage_diff's result,
		// whose schema is published there); hosts without the Apps
		// extension still list the tool, so it stays small.
		out = nil
	}
	// No title: it would repeat the name for every tool of tools/list.
	return &mcp.Tool{
		Name:         op.Name,
		Description:  desc,
		InputSchema:  wireInputSchema(op.InputSchema()),
		OutputSchema: out,
		Annotations:  ann,
		Meta:         toolMeta(op.Name),
	}
}

// handler adapts an operation: validate → decode → call → structured result.
// Every failure is a tool result with isError, never a protocol error.
func (s *Server) handler(op *ops.Op) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		in, err := op.Decode(req.Params.Arguments)
		if err != nil {
			return s.toolError(ctx, req, op, err, start), nil
		}
		if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
			ss := req.Session
			ctx = ops.WithProgress(ctx, func(progress, total float64, message string) {
				_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: tok, Progress: progress, Total: total, Message: message,
				})
			})
		}
		qctx := warehouse.WithResultBudget(ops.WithAgentTrigger(ctx), resultBudget(s.maxReply))
		out, err := op.Call(qctx, s.sess, in)
		if err != nil {
			return s.toolError(ctx, req, op, err, start), nil
		}
		res, err := structuredResult(out, s.maxReply)
		if err != nil {
			return s.toolError(ctx, req, op, err, start), nil
		}
		s.log.Debug("tool call", "tool", op.Name, "duration_ms", time.Since(start).Milliseconds())
		s.refreshSingleEnv(ctx)
		return res, nil
	}
}

// refreshSingleEnv re-registers the tools (and so notifies
// tools/list_changed) when a rebuild created or removed the base build, so
// that the diff tools' descriptions stay true.
func (s *Server) refreshSingleEnv(ctx context.Context) {
	p, err := s.sess.Project(ctx)
	if err != nil {
		return
	}
	s.mu.Lock()
	changed := p.SingleEnv != s.singleEnv
	s.mu.Unlock()
	if changed {
		s.log.Info("single-environment mode changed after a rebuild", "single_env", p.SingleEnv)
		s.registerTools(p.SingleEnv)
	}
}

// toolError turns an operation failure into an isError result, explaining
// how to fix missing artifacts, and logs it: classified warehouse errors as
// warnings with their class, everything else as errors.
func (s *Server) toolError(ctx context.Context, req *mcp.CallToolRequest, op *ops.Op, err error, start time.Time) *mcp.CallToolResult {
	msg := err.Error()
	level, class := slog.LevelError, ""
	// The MCP row of the caller-error table (ops.Classify): every class is
	// a tool error (isError); the caller's mistakes are logged as warnings
	// with their class, which the agent can act on, bugs as errors.
	switch c := ops.Classify(err); {
	case c == ops.ClassInvalidParameter || c == ops.ClassUsage:
		level, class = slog.LevelWarn, "input_validation"
	case c.CallerError():
		level, class = slog.LevelWarn, string(c)
	case c == ops.ClassInternal:
		level = slog.LevelError
	default:
		switch c := warehouse.Classify(err); c {
		case warehouse.ClassPermissionDenied, warehouse.ClassTableNotFound, warehouse.ClassSyntaxError, warehouse.ClassCanceled:
			// The seed's expected classes (recce-spec §1.5) are warnings:
			// the agent can act on them. A warehouse that cannot be reached
			// or rejects the credentials is an operator's problem: an error.
			level, class = slog.LevelWarn, string(c)
		case warehouse.ClassUnclassified:
		default:
			class = string(c)
		}
		if _, perr := s.sess.Project(ctx); perr != nil && op.Name != "get_server_info" && op.Name != "set_backend" {
			msg = unconfiguredMessage(perr)
			level, class = slog.LevelWarn, "artifacts_unavailable"
		}
	}
	attrs := []any{"tool", op.Name, "error", err.Error(), "duration_ms", time.Since(start).Milliseconds()}
	if class != "" {
		attrs = append(attrs, "class", class)
	}
	if class != "" && level == slog.LevelWarn {
		s.log.Log(ctx, level, "expected "+class+" error in tool "+op.Name, attrs...)
	} else {
		s.log.Log(ctx, level, "tool "+op.Name+" failed", attrs...)
	}
	if req != nil && req.Session != nil {
		lvl := "error"
		if level == slog.LevelWarn {
			lvl = "warning"
		}
		notifyClient(ctx, req.Session, lvl, map[string]any{"tool": op.Name, "error": msg, "class": class})
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

func unconfiguredMessage(err error) string {
	return "Ripple could not load the dbt artifacts: " + err.Error() + ". To fix it, run `dbt docs generate` in the " +
		"project (and `dbt docs generate --target-path target-base` for the base branch), or call set_backend " +
		"with mode 'local' and the right project_dir / target_path / target_base_path; get_server_info shows the current paths."
}

// toolNames lists the exposed tools, sorted.
func (s *Server) toolNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.tools))
	for n := range s.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (s *Server) lookup(name string) (*ops.Op, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op, ok := s.tools[name]
	return op, ok
}

// middleware recovers panics anywhere in request handling and turns calls to
// gated or unknown tools into clear answers.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("panic while handling a request", "method", method, "panic", fmt.Sprint(v))
				if method == "tools/call" {
					res, err = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
						Text: fmt.Sprintf("internal error: %v (please report it)", v)}}}, nil
					return
				}
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error: %v (please report it)", v)}
			}
		}()
		if method == "tools/call" {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				if _, known := s.lookup(p.Name); !known && !s.fixtureTools[p.Name] {
					return s.unavailable(p.Name)
				}
			}
		}
		res, err = next(ctx, method, req)
		if method == "tools/list" && err == nil {
			withoutAppOnly(req, res)
		}
		return res, err
	}
}

func (s *Server) unavailable(name string) (mcp.Result, error) {
	avail := s.toolNames()
	quoted := make([]string, len(avail))
	for i, n := range avail {
		quoted[i] = "'" + n + "'"
	}
	if op, ok := s.reg.Get(name); ok && op.Name == name {
		msg := fmt.Sprintf("Tool '%s' is not available in %s mode. Only %s are available in this mode.", name, s.mode, strings.Join(quoted, ", "))
		if s.modeAllows(op) {
			msg = fmt.Sprintf("Tool '%s' is not in the toolsets served (%s): start `ripple mcp` with --toolsets %s (or all).",
				name, strings.Join(s.toolsets, ","), strings.Join(ops.ToolsetsOf(name), " or "))
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
		"Unknown tool: %s. Available tools: %s.", name, strings.Join(avail, ", "))}
}

// minLevel keeps the SDK's chatty per-session info logs out of the log.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.min}
}
func (h minLevel) WithGroup(n string) slog.Handler { return minLevel{h.Handler.WithGroup(n), h.min} }
