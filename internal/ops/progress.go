package ops

import "context"

// ProgressFunc receives progress from a long-running operation: progress
// done so far out of total (0 when unknown) and a short human message.
type ProgressFunc func(progress, total float64, message string)

type progressKey struct{}

// WithProgress returns a context that carries f; operations report through
// ReportProgress. Surfaces install it (the MCP server sends
// notifications/progress when the client asked for them).
func WithProgress(ctx context.Context, f ProgressFunc) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, f)
}

// ReportProgress tells the caller how far the operation is. It is a no-op
// when nobody listens, so operations can call it unconditionally.
func ReportProgress(ctx context.Context, progress, total float64, message string) {
	if f, ok := ctx.Value(progressKey{}).(ProgressFunc); ok {
		f(progress, total, message)
	}
}
