//lint:file-ignore SA1019 MCP logging is deprecated by the 2026-07-28 protocol but is part of every handshake-era version Ripple serves.

package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func loggingCapability() *mcp.LoggingCapabilities { return &mcp.LoggingCapabilities{} }

// notifyClient sends notifications/message when the client asked for logs
// (logging/setLevel); the SDK drops it otherwise.
func notifyClient(ctx context.Context, ss *mcp.ServerSession, level string, data any) {
	_ = ss.Log(ctx, &mcp.LoggingMessageParams{Logger: "ripple", Level: mcp.LoggingLevel(level), Data: data})
}
