package warehouse

import (
	"context"
	"errors"
	"regexp"
	"strings"
)

// ErrorClass buckets warehouse errors so callers can react (and tell the
// user what to fix) without parsing driver-specific messages.
type ErrorClass string

const (
	ClassPermissionDenied ErrorClass = "permission_denied"
	ClassTableNotFound    ErrorClass = "table_not_found"
	ClassSyntaxError      ErrorClass = "syntax_error"
	// ClassCanceled marks errors caused by ctx cancellation or deadline, so
	// callers do not report a user's Ctrl-C as a warehouse failure.
	ClassCanceled     ErrorClass = "canceled"
	ClassUnclassified ErrorClass = "unclassified"
)

// classRule patterns are matched against the lower-cased message. Order in
// classRules is the priority: Snowflake reports a missing table and a
// missing grant with the same text ("does not exist or not authorized"), so
// permission must win over not-found, and not-found over syntax (a missing
// relation also surfaces as a compilation/binder error on some engines).
type classRule struct {
	class    ErrorClass
	contains []string
	regexps  []*regexp.Regexp
}

func classRules() []classRule {
	return []classRule{
		{
			class: ClassPermissionDenied,
			contains: []string{
				"permission denied", "not authorized", "42501", "insufficient privilege",
				"access denied", "access_denied", "permission_denied", "does not have privilege",
				"not allowed to", "read-only transaction", "read-only mode", "25006",
				"read only mode", "unauthorized",
			},
		},
		{
			class: ClassTableNotFound,
			contains: []string{
				"42p01", "3f000", "table with name", "view with name", "schema with name",
				"catalog with name", "table_or_view_not_found", "table or view not found",
				"not found: table", "not found: dataset", "undefined_table", "no such table",
			},
			regexps: []*regexp.Regexp{
				regexp.MustCompile(`(relation|table|view|schema|catalog|database|object) \S.* does not exist`),
				regexp.MustCompile(`(table|view) \S.* (was )?not found`),
			},
		},
		{
			class: ClassSyntaxError,
			contains: []string{
				"syntax error", "syntax_error", "parser error", "parse error", "42601", "42703",
				"42883", "invalid identifier", "column count mismatch", "binder error",
				"sql compilation error", "mismatched input", "unrecognized name",
				"cannot be resolved", "unresolved_column", "undefined_column",
			},
			regexps: []*regexp.Regexp{
				regexp.MustCompile(`column \S.* does not exist`),
			},
		},
	}
}

// Classify buckets err by its message, case-insensitively, in priority
// order permission_denied > table_not_found > syntax_error > unclassified.
// A *Error keeps the class its adapter gave it.
func Classify(err error) ErrorClass {
	if err == nil {
		return ClassUnclassified
	}
	var we *Error
	if errors.As(err, &we) && we.Class != "" {
		return we.Class
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ClassCanceled
	}
	return ClassifyMessage(err.Error())
}

// ClassifyMessage is Classify for a bare message.
func ClassifyMessage(msg string) ErrorClass {
	m := strings.ToLower(msg)
	for _, r := range classRules() {
		for _, s := range r.contains {
			if strings.Contains(m, s) {
				return r.class
			}
		}
		for _, re := range r.regexps {
			if re.MatchString(m) {
				return r.class
			}
		}
	}
	return ClassUnclassified
}

// Error is what adapters return for a failed statement.
type Error struct {
	Class   ErrorClass `json:"class"`
	Message string     `json:"message"`
	// SQL is the statement that failed, when there was one.
	SQL string `json:"sql,omitempty"`
	Err error  `json:"-"`
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if h := e.Class.Hint(); h != "" {
		return msg + " (" + h + ")"
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Hint says what the user can do about an error of this class.
func (c ErrorClass) Hint() string {
	switch c {
	case ClassPermissionDenied:
		return "the profile's user lacks a grant on this object, or the object does not exist; Ripple only reads, so grant SELECT/USAGE or check the target"
	case ClassTableNotFound:
		return "the relation is missing in this target: build it with dbt (dbt run/build) or point the profile at the database where it was built"
	case ClassSyntaxError:
		return "the warehouse rejected the SQL; check column names and the SQL dialect"
	case ClassCanceled:
		return "the query was canceled or timed out"
	}
	return ""
}

// NewError wraps a driver error, classifying it. It returns nil for nil
// and passes an existing *Error through unchanged.
func NewError(err error, sql string) error {
	if err == nil {
		return nil
	}
	var we *Error
	if errors.As(err, &we) {
		return err
	}
	return &Error{Class: Classify(err), Message: err.Error(), SQL: sql, Err: err}
}
