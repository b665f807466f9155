package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP logging (the capability, logging/setLevel and notifications/message)
// is deprecated by the 2026-07-28 protocol (SEP-2577, hence SA1019) but is
// part of every handshake-era protocol version Ripple serves, and the
// conformance suite tests it; each use below is marked.

//lint:ignore SA1019 logging is part of every handshake-era protocol version served (see above)
func loggingCapability() *mcp.LoggingCapabilities {
	//lint:ignore SA1019 logging is part of every handshake-era protocol version served (see above)
	return &mcp.LoggingCapabilities{}
}

// notifyClient sends notifications/message when the client asked for logs
// (logging/setLevel); the SDK drops it otherwise.
func notifyClient(ctx context.Context, ss *mcp.ServerSession, level string, data any) {
	//lint:ignore SA1019 logging is part of every handshake-era protocol version served (see above)
	_ = ss.Log(ctx, &mcp.LoggingMessageParams{Logger: "ripple", Level: mcp.LoggingLevel(level), Data: data})
}

// logLevels are the syslog severities MCP defines for logging/setLevel.
var logLevels = map[string]bool{"debug": true, "info": true, "notice": true, "warning": true, "error": true, "critical": true, "alert": true, "emergency": true}

// validateLogLevel answers logging/setLevel with an unknown level with
// -32602 (invalid params); the SDK would store any string.
func validateLogLevel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "logging/setLevel" {
			//lint:ignore SA1019 logging is part of every handshake-era protocol version served (see above)
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && !logLevels[string(p.Level)] {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
					"Invalid params: log level %q is not one of debug, info, notice, warning, error, critical, alert, emergency", p.Level)}
			}
		}
		return next(ctx, method, req)
	}
}
