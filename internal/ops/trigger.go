package ops

import (
	"context"

	"github.com/ripple-data/ripple/internal/checks"
)

type triggerKey struct{}

// WithAgentTrigger marks calls made by an AI agent (the MCP server sets it),
// so that checks it creates or runs are approved only when they succeed.
func WithAgentTrigger(ctx context.Context) context.Context {
	return context.WithValue(ctx, triggerKey{}, checks.TriggerAgent)
}

func triggerOf(ctx context.Context) checks.Trigger {
	if t, ok := ctx.Value(triggerKey{}).(checks.Trigger); ok {
		return t
	}
	return checks.TriggerUser
}
