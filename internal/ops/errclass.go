package ops

import (
	"errors"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/selector"
	"github.com/ripple-data/ripple/internal/static"
)

// ErrorClass is what an operation error means to its caller. Errors are
// classified here, once; each surface turns a class into its own terms with
// one small table (the CLI's exit codes in internal/cli/errors.go, the web
// API's HTTP statuses in internal/web/api.go, the MCP server's tool errors
// and log levels in internal/mcpserver/server.go).
type ErrorClass string

const (
	// ClassNotFound: an argument names nothing in the project: a model,
	// column, selector term, check or entity (the message names the
	// closest existing names).
	ClassNotFound ErrorClass = "not_found"
	// ClassAmbiguous: a name matches several nodes; the message lists their
	// unique ids.
	ClassAmbiguous ErrorClass = "ambiguous"
	// ClassInvalidParameter: an argument does not match the operation's
	// input schema, or a selector or check type is malformed.
	ClassInvalidParameter ErrorClass = "invalid_parameter"
	// ClassUsage: the call is wrong in the surface's own terms (a flag or
	// argument the CLI cannot parse); surfaces mark these with UsageError.
	ClassUsage ErrorClass = "usage"
	// ClassNoWarehouse: the operation needs a warehouse and none is
	// configured.
	ClassNoWarehouse ErrorClass = "no_warehouse"
	// ClassDataStepFailed: the call was right but the work failed: the
	// warehouse refused a query, artifacts could not be read, a step failed.
	ClassDataStepFailed ErrorClass = "data_step_failed"
	// ClassInternal: a bug (a panic inside an operation).
	ClassInternal ErrorClass = "internal"
)

// CallerError reports whether the class is the caller's mistake, which the
// caller fixes by changing the call (exit 2, HTTP 400, a warning-level tool
// error).
func (c ErrorClass) CallerError() bool {
	switch c {
	case ClassNotFound, ClassAmbiguous, ClassInvalidParameter, ClassUsage:
		return true
	}
	return false
}

// UsageError is implemented by a surface's errors about the form of the
// call (an unknown flag or command, a flag given twice), so that they are
// found by type rather than by their message.
type UsageError interface {
	error
	UsageError()
}

// Classify returns the class of an operation error. The order matters: a
// panic is internal whatever it wraps, an ambiguous name is also an unknown
// entity, and an input error may wrap a lookup's not-found.
func Classify(err error) ErrorClass {
	var (
		pe *PanicError
		ue UsageError
		ie *InputError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &pe):
		return ClassInternal
	case errors.As(err, &ue):
		return ClassUsage
	case errors.Is(err, static.ErrAmbiguousEntity):
		return ClassAmbiguous
	case errors.Is(err, dbt.ErrNotFound), errors.Is(err, selector.ErrNoMatch),
		errors.Is(err, static.ErrUnknownEntity), errors.Is(err, checks.ErrNotFound):
		return ClassNotFound
	case errors.As(err, &ie), errors.Is(err, selector.ErrInvalid), errors.Is(err, checks.ErrUnknownType):
		return ClassInvalidParameter
	case errors.Is(err, ErrNoWarehouse):
		return ClassNoWarehouse
	}
	return ClassDataStepFailed
}
