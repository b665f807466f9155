package warehouse

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ripple-data/ripple/internal/sqlguard"
)

// DefaultStatementTimeout bounds every statement unless configured.
const DefaultStatementTimeout = 5 * time.Minute

// Limits bound what one statement may cost. Zero fields take the defaults;
// a negative field disables that limit.
type Limits struct {
	// StatementTimeout stops a statement in the warehouse after this long
	// (DefaultStatementTimeout when 0).
	StatementTimeout time.Duration
	// MaxResultBytes and MaxCellBytes are the defaults of QueryOptions'
	// MaxBytes and MaxCellBytes.
	MaxResultBytes int64
	MaxCellBytes   int
}

// EffectiveTimeout resolves StatementTimeout (0 = default, <0 = none → 0).
func (l Limits) EffectiveTimeout() time.Duration {
	switch {
	case l.StatementTimeout == 0:
		return DefaultStatementTimeout
	case l.StatementTimeout < 0:
		return 0
	}
	return l.StatementTimeout
}

// Guarded wraps an adapter so that every Query is classified first (exactly
// one read-only statement, see internal/sqlguard), runs under the statement
// timeout, and returns a byte-capped result. internal/warehouse/open wraps
// every Conn it opens, so a new adapter is guarded without doing anything.
func Guarded(c Conn, l Limits) Conn {
	if g, ok := c.(*guarded); ok {
		c = g.Conn
	}
	return &guarded{Conn: c, limits: l}
}

type guarded struct {
	Conn
	limits Limits
}

// Unwrap returns the adapter's own Conn, for adapter-specific methods.
func (g *guarded) Unwrap() Conn { return g.Conn }

// Warnings forwards the adapter's connection warnings (see Warnings).
func (g *guarded) Warnings() []string { return Warnings(g.Conn) }

func (g *guarded) Query(ctx context.Context, sql string, opts QueryOptions) (*Result, error) {
	// The statement timeout covers classification too, so that a huge SQL
	// string cannot hold the server longer than any query may.
	timeout := g.limits.EffectiveTimeout()
	qctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		qctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	timedOut := func(err error, stmt string) error {
		return &Error{Class: ClassCanceled, SQL: stmt, Err: err,
			Message: fmt.Sprintf("the statement ran longer than the statement timeout (%s) and was stopped; raise it with --statement-timeout (or statement_timeout in the profile) or make the query cheaper", timeout)}
	}
	stmt, err := sqlguard.Check(qctx, g.Conn.Dialect(), sql)
	if err != nil {
		if sqlguard.IsRefusal(err) {
			return nil, Refusal(err, sql)
		}
		if ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) {
			return nil, timedOut(err, sql)
		}
		return nil, &Error{Class: ClassCanceled, SQL: sql, Err: err, Message: "the query was cancelled while its SQL was being checked: " + err.Error()}
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = g.limits.MaxResultBytes
	}
	if opts.MaxCellBytes == 0 {
		opts.MaxCellBytes = g.limits.MaxCellBytes
	}
	if b := ResultBudget(ctx); b > 0 && (opts.MaxBytes <= 0 || opts.MaxBytes > b) {
		opts.MaxBytes = b
	}
	res, err := g.Conn.Query(qctx, stmt, opts)
	if err != nil && ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) {
		return nil, timedOut(err, stmt)
	}
	return res, err
}

// Refusal wraps a classifier refusal (*sqlguard.Error) for callers that
// classify warehouse errors: SQL that cannot be read, or does not begin a
// query, is a syntax error; a write, a second statement or a side effect is
// permission_denied, as the warehouse itself would answer on a read-only
// connection.
func Refusal(err error, sql string) error {
	var ge *sqlguard.Error
	if !errors.As(err, &ge) {
		return err
	}
	class := ClassPermissionDenied
	if ge.Kind == sqlguard.KindSyntax || ge.Kind == sqlguard.KindEmpty {
		class = ClassSyntaxError
	}
	return refusal{&Error{Class: class, Message: ge.Msg, SQL: sql, Err: err}}
}

// refusal is an *Error whose message stands alone: the class hints are about
// warehouse grants, and a refusal is Ripple's, not the warehouse's.
type refusal struct{ e *Error }

func (r refusal) Error() string { return r.e.Message }
func (r refusal) Unwrap() error { return r.e }

// Warner is implemented by adapters that found something the user should
// know about the connection (a superuser login, a role that can write).
type Warner interface {
	Warnings() []string
}

// Warnings returns c's connection warnings, if it has any.
func Warnings(c any) []string {
	if w, ok := c.(Warner); ok {
		return w.Warnings()
	}
	return nil
}
