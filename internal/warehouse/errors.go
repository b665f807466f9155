package warehouse

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"regexp"
	"strings"
	"syscall"

	"github.com/ripple-data/ripple/internal/dialect"
)

// ErrorClass buckets warehouse errors so callers can react (and tell the
// user what to fix) without parsing driver-specific messages. This file is
// the one classifier: adapters classify their vendor's error codes through
// VendorError, everything else calls Classify and never re-classifies.
type ErrorClass string

// The classes. The first three are the seed's (recce-spec §1.5) and keep its
// priority; the others are Ripple's additions for failures to connect.
const (
	ClassPermissionDenied ErrorClass = "permission_denied"
	ClassTableNotFound    ErrorClass = "table_not_found"
	ClassSyntaxError      ErrorClass = "syntax_error"
	// ClassAuth: the warehouse rejected the credentials (wrong password,
	// expired token, bad key pair).
	ClassAuth ErrorClass = "auth_failed"
	// ClassConnection: the warehouse could not be reached (refused, DNS,
	// TLS, timeout while connecting).
	ClassConnection ErrorClass = "connection_failed"
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
// Credentials and reachability come last: their messages never name an
// object, and an object error must not be mistaken for a login failure.
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
				"read only mode", "insufficient_permissions",
			},
		},
		// A missing column is a mistake in the SQL, although its message
		// reads like a missing object's; it is matched before the generic
		// "does not exist" of table_not_found.
		{
			class:   ClassSyntaxError,
			regexps: []*regexp.Regexp{regexp.MustCompile(`column \S.* does not exist`)},
		},
		{
			class: ClassTableNotFound,
			contains: []string{
				"42p01", "42s02", "3f000", "table with name", "view with name", "schema with name",
				"catalog with name", "table_or_view_not_found", "table or view not found",
				"not found: table", "not found: dataset", "undefined_table", "no such table",
				"does not exist", "invalid object name", "table_not_found", "schema_not_found",
			},
			regexps: []*regexp.Regexp{
				regexp.MustCompile(`(table|view) \S.* (was )?not found`),
			},
		},
		{
			class: ClassSyntaxError,
			contains: []string{
				"syntax error", "syntax_error", "parser error", "parse error", "42601", "42703",
				"42883", "invalid identifier", "column count mismatch", "binder error",
				"sql compilation error", "mismatched input", "unrecognized name",
				"cannot be resolved", "unresolved_column", "undefined_column", "invalid query block",
			},
		},
		{
			class: ClassAuth,
			contains: []string{
				"password authentication failed", "incorrect username or password", "authentication failed",
				"invalid authentication credentials", "unauthorized", "unauthenticated", "28p01", "invalid_grant",
				"invalid access token", "invalid oauth", "jwt token is invalid", "invalid credentials", "401 ",
				"login failed", "failed to parse private key", "oauth2: cannot fetch token", "could not find default credentials",
				"invalid_client",
			},
		},
		{
			class: ClassConnection,
			contains: []string{
				"connection refused", "no such host", "i/o timeout", "network is unreachable",
				"connection reset", "x509:", "tls:", "dial tcp", "server closed the connection",
				"could not connect", "failed to connect", "timeout: context", "host is unreachable",
			},
		},
	}
}

// Classify buckets err in priority order permission_denied >
// table_not_found > syntax_error > auth_failed > connection_failed >
// unclassified. A *Error keeps the class its adapter gave it (from the
// vendor's error code); cancellation and typed network failures are
// recognised by type; anything else by its message.
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
	if c := ClassifyMessage(err.Error()); c != ClassUnclassified {
		return c
	}
	if isNetwork(err) {
		return ClassConnection
	}
	return ClassUnclassified
}

// isNetwork recognises failures to reach a server by their type.
func isNetwork(err error) bool {
	var (
		op    *net.OpError
		dns   *net.DNSError
		unk   x509.UnknownAuthorityError
		host  x509.HostnameError
		inval x509.CertificateInvalidError
	)
	return errors.As(err, &op) || errors.As(err, &dns) || errors.As(err, &unk) || errors.As(err, &host) ||
		errors.As(err, &inval) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
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

// ClassifyCode maps a vendor error code through the warehouse's record
// (internal/dialect records/<name>.json); ClassUnclassified when the record
// does not know it.
func ClassifyCode(dialectName, code string) ErrorClass {
	if code == "" {
		return ClassUnclassified
	}
	d, err := dialect.ForAdapter(dialectName)
	if err != nil {
		return ClassUnclassified
	}
	if c := d.ErrorClass(code); c != "" {
		return ErrorClass(c)
	}
	return ClassUnclassified
}

// VendorError is how an adapter reports a failed request: the vendor's
// code classifies it when the warehouse's record knows the code, else the
// message (and err's type) does. message is what the user reads, already
// prefixed with the adapter name and free of secrets.
func VendorError(dialectName, code, message, sql string, err error) *Error {
	c := ClassifyCode(dialectName, code)
	if c == ClassUnclassified {
		c = ClassifyMessage(message)
	}
	if c == ClassUnclassified && err != nil {
		c = Classify(err)
	}
	return &Error{Class: c, Code: code, Message: message, SQL: sql, Err: err}
}

// Error is what adapters return for a failed statement.
type Error struct {
	Class ErrorClass `json:"class"`
	// Code is the vendor's error code when there was one (SQLSTATE,
	// Snowflake error number, BigQuery reason, Databricks or Trino error name).
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	// SQL is the statement that failed, when there was one.
	SQL string `json:"sql,omitempty"`
	Err error  `json:"-"`
}

// Error is the message followed by the class's one hint.
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
		return "the relation is missing in this target: the dbt artifacts may be stale or the profile points at another database; build it with dbt (dbt run/build), regenerate the artifacts with dbt docs generate, or fix the target"
	case ClassSyntaxError:
		return "the warehouse rejected the SQL; check column names and the SQL dialect"
	case ClassAuth:
		return "the warehouse rejected the credentials; check the user, password, token or key in profiles.yml (and the env_var values it reads)"
	case ClassConnection:
		return "Ripple could not reach the warehouse; check the host, port or account in profiles.yml and that the network allows the connection"
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
