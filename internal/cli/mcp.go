package cli

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/mcpserver"
	"github.com/ripple-data/ripple/internal/ops"
)

// newMCPCommand is `ripple mcp`: every registry operation as an MCP tool,
// over stdio (default) or streamable HTTP (--http).
func newMCPCommand(g *Globals, ios IOStreams, reg *ops.Registry) *cobra.Command {
	var (
		httpAddr, authEnv, mode, logFile string
		stateless, allowUnauth           bool
		origins, toolsets                []string
		maxSessions                      int
		sessionIdle                      time.Duration
		maxReplyBytes                    int64
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve Ripple's operations to AI agents over MCP (stdio, or HTTP with --http)",
		Long: "Serve every Ripple operation as an MCP tool returning the same JSON as `ripple <op> --json`.\n" +
			"stdio is the default (stdout carries only JSON-RPC; logs go to stderr or --log-file).\n" +
			"--http ADDR serves streamable HTTP at http://ADDR/mcp and GET /health (loopback by default).\n" +
			"Set up a client: claude mcp add ripple -- ripple mcp --project-dir /path/to/dbt/project",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			m, err := mcpserver.ParseMode(mode)
			if err != nil {
				return usageError{err}
			}
			token := ""
			if authEnv != "" {
				token = os.Getenv(authEnv)
				if token == "" {
					return usageError{fmt.Errorf("--auth-token-env %s: the variable is empty or unset", authEnv)}
				}
			}
			if authEnv != "" && httpAddr == "" {
				return usageError{fmt.Errorf("--auth-token-env needs --http")}
			}
			if httpAddr != "" && !mcpserver.IsLoopbackAddr(httpAddr) && token == "" && !allowUnauth {
				return usageError{fmt.Errorf("--http %s is not a loopback address: set --auth-token-env NAME to require a bearer token (anyone who can reach the port could otherwise call every tool), or pass --allow-unauthenticated if something in front of Ripple authenticates", httpAddr)}
			}
			logOut := ios.ErrOut
			if logFile != "" {
				f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
				if err != nil {
					return fmt.Errorf("opening --log-file: %w", err)
				}
				defer f.Close()
				logOut = f
			}
			level := slog.LevelInfo
			if g.Verbose {
				level = slog.LevelDebug
			}
			logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
			sess := ops.NewSession(ops.Config{
				Paths:         dbt.Paths{ProjectDir: g.ProjectDir, TargetPath: g.TargetPath, TargetBasePath: g.TargetBasePath},
				OpenWarehouse: g.warehouseOpener(),
				StatePath:     g.StateFile,
				Runs:          g.Runs,
				AllowedDirs:   g.AllowedDirs,
				Logger:        logger,
				KeepCosmetic:  g.KeepCosmetic,
			})
			defer sess.Close()
			srv, err := mcpserver.New(c.Context(), mcpserver.Options{Registry: reg, Session: sess, Mode: m, Toolsets: toolsets, Version: Version, Logger: logger,
				MaxReplyBytes: maxReplyBytes})
			if err != nil {
				return usageError{err}
			}
			if httpAddr == "" {
				return srv.ServeStdio(c.Context(), ios.In, ios.Out)
			}
			h := srv.HTTPHandler(mcpserver.HTTPOptions{Stateless: stateless, AuthToken: token, AllowedOrigins: origins,
				MaxSessions: maxSessions, SessionIdleTimeout: sessionIdle})
			return mcpserver.ServeHTTP(c.Context(), httpAddr, h, func(a net.Addr) {
				fmt.Fprintf(logOut, "ripple mcp: serving streamable HTTP at http://%s/mcp (health: /health)\n", a)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&httpAddr, "http", "", "serve streamable HTTP on ADDR (e.g. 127.0.0.1:8000 or :8000, which binds loopback) instead of stdio")
	f.BoolVar(&stateless, "stateless", false, "HTTP without sessions, for replicas behind a load balancer")
	f.StringVar(&authEnv, "auth-token-env", "", "require \"Authorization: Bearer <token>\" on HTTP, reading the token from the environment variable `NAME`")
	f.BoolVar(&g.ProfilesFollowBackend, "set-backend-profiles", false, "let set_backend read the profiles.yml of the project it switches to (default: the startup project's profile, or --profiles-dir)")
	f.BoolVar(&allowUnauth, "allow-unauthenticated", false, "serve --http on a non-loopback address without a token (only behind something that authenticates)")
	f.IntVar(&maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "most concurrent HTTP sessions; an initialize beyond it gets 503 (negative: no cap)")
	f.DurationVar(&sessionIdle, "session-idle-timeout", mcpserver.DefaultSessionIdleTimeout, "close an HTTP session that sent no request for this long (negative: never)")
	f.StringSliceVar(&origins, "allowed-origins", nil, "browser origins allowed besides loopback (scheme://host:port)")
	f.StringVar(&mode, "mode", envOr("RIPPLE_MCP_MODE", "server"), "server (all tools), preview (no warehouse queries) or read-only (preview without check writes) (env RIPPLE_MCP_MODE)")
	f.Int64Var(&maxReplyBytes, "max-reply-bytes", mcpserver.DefaultMaxReplyBytes, "cap each tool result at about this many bytes on the wire, text and structured content together (rows beyond it are cut, with truncated: true and a hint; negative: none)")
	f.StringVar(&logFile, "log-file", "", "append logs to this file instead of stderr")
	f.StringSliceVar(&toolsets, "toolsets", splitList(os.Getenv("RIPPLE_TOOLSETS")),
		"tools to serve: recce (default; the peer's 20), checks, review, lineage, static, or all; comma-separated (env RIPPLE_TOOLSETS)")
	return cmd
}

// splitList splits a comma-separated environment value ("" is none).
func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
