package diff

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Error classes of warehouse errors.
const (
	ClassPermissionDenied = "permission_denied"
	ClassTableNotFound    = "table_not_found"
	ClassSyntaxError      = "syntax_error"
)

var (
	errTableNotFound    = errors.New("table not found")
	errPermissionDenied = errors.New("permission denied")
	errSyntax           = errors.New("SQL error")
)

// classify names the class of a warehouse error ("" when unknown). The
// indicator lists are checked in priority order on the upper-cased message.
func classify(err error) string {
	if err == nil {
		return ""
	}
	switch {
	case errors.Is(err, errPermissionDenied):
		return ClassPermissionDenied
	case errors.Is(err, errTableNotFound):
		return ClassTableNotFound
	case errors.Is(err, errSyntax):
		return ClassSyntaxError
	}
	if c := classifyWarehouse(err); c != "" {
		return c
	}
	msg := strings.ToUpper(err.Error())
	for _, c := range []struct {
		class string
		marks []string
	}{
		{ClassPermissionDenied, []string{"NOT AUTHORIZED", "PERMISSION DENIED", "ACCESS DENIED", "INSUFFICIENT PRIVILEGES"}},
		{ClassTableNotFound, []string{"DOES NOT EXIST", "42S02", "42P01", "TABLE OR VIEW NOT FOUND", "RELATION DOES NOT EXIST", "OBJECT DOES NOT EXIST", "INVALID OBJECT NAME"}},
		{ClassSyntaxError, []string{"SYNTAX ERROR", "PARSER ERROR", "INVALID QUERY BLOCK", "COLUMN COUNT MISMATCH", "INVALID IDENTIFIER"}},
	} {
		for _, m := range c.marks {
			if strings.Contains(msg, m) {
				return c.class
			}
		}
	}
	return ""
}

// wrapErr wraps a warehouse error with what Ripple was doing and what the user
// can do about it. Cancellation passes through unchanged.
func (e Env) wrapErr(doing string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	switch classify(err) {
	case ClassPermissionDenied:
		return fmt.Errorf("%s: %w (%w); grant the warehouse user read access to both schemas", doing, err, errPermissionDenied)
	case ClassTableNotFound:
		return fmt.Errorf("%s: %w (%w); the dbt artifacts may be stale or the environment misconfigured: rebuild with `dbt run` and regenerate the artifacts with `dbt docs generate`", doing, err, errTableNotFound)
	case ClassSyntaxError:
		return fmt.Errorf("%s: %w (%w); check the SQL against the %s dialect", doing, err, errSyntax, e.dialectName())
	}
	return fmt.Errorf("%s: %w", doing, err)
}

func (e Env) dialectName() string {
	if e.Dialect != nil {
		return e.Dialect.Name()
	}
	if e.Conn != nil {
		return e.Conn.Dialect()
	}
	return "warehouse"
}
