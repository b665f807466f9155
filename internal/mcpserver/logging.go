package mcpserver

import (
	"context"

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
