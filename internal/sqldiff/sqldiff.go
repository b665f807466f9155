// Package sqldiff compares two versions of a model's SQL through Ripple's
// parser (internal/sqlparse) and says what changed, clause by clause, or
// that the edit is cosmetic (layout, comments, keyword case, alias and CTE
// names, redundant parentheses, quoting the dialect folds the same way,
// <> for !=, an optional AS, a trailing semicolon).
//
// Expressions are compared in sqlparse's canonical text (sqlparse.FormatTo,
// the form column digests hash) with column qualifiers replaced by the
// relation they name, so alias renames drop out; the query structure around
// them (CTEs, FROM and joins, clauses, set operations) is walked here.
package sqldiff

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// Change kinds: the vocabulary of Change.Kind.
const (
	ColumnAdded      = "column_added"
	ColumnRemoved    = "column_removed"
	ColumnRenamed    = "column_renamed"
	ColumnExpression = "column_expression"
	Filter           = "filter"
	Join             = "join"
	GroupBy          = "group_by"
	Source           = "source"
	Distinct         = "distinct"
	OrderBy          = "order_by"
	Limit            = "limit"
	SetOperation     = "set_operation"
)

// Final is the scope of the query's outermost SELECT.
const Final = "final"

// maxClause caps Before/After: a reviewer reads the clause, not a dump.
const maxClause = 300

// Change is one structural difference between the base and current SQL.
type Change struct {
	Kind   string `json:"kind" jsonschema:"column_added, column_removed, column_renamed, column_expression, filter, join, group_by, source, distinct, order_by, limit or set_operation"`
	Column string `json:"column" jsonschema:"first final output column reached (through CTEs and subqueries)"`
	// Columns lists every final output column reached, so a CTE change is
	// reported once, where it is, and still says what it touches.
	Columns []string `json:"columns,omitempty" jsonschema:"every final output column reached"`
	Scope   string   `json:"scope" jsonschema:"final or the CTE name"`
	Before  string   `json:"before" jsonschema:"base clause, normalised (≤300 chars)"`
	After   string   `json:"after" jsonschema:"current clause, normalised (≤300 chars)"`
}

// Result is the structural diff of two SQL texts.
type Result struct {
	Cosmetic bool     `json:"cosmetic" jsonschema:"only layout, comments, case, alias/CTE names, parentheses, quoting, <>/!=, AS or ; differ"`
	Changes  []Change `json:"changes" jsonschema:"structural changes; none when a side does not parse (see error)"`
	// Error is set when one side does not parse: no change is guessed.
	Error *ParseError `json:"error,omitempty" jsonschema:"a side that does not parse"`
}

// ParseError says which side failed to parse and where.
type ParseError struct {
	Side    string `json:"side" jsonschema:"base or current"`
	Message string `json:"message" jsonschema:"parser message"`
	Line    int    `json:"line" jsonschema:"line"`
	Col     int    `json:"column" jsonschema:"column"`
}

// Diff compares base and current SQL in a dialect (a dbt adapter type).
// It never guesses: when either side fails to parse, Changes is nil and
// Error says where.
func Diff(dialect, base, current string) Result {
	return DiffSchema(dialect, base, current, nil)
}

// DiffSchema is Diff with upstream schemas (relation name as written →
// ordered columns): a star over such a relation then names its columns
// when changes are attributed to output columns.
func DiffSchema(dialect, base, current string, schema map[string][]string) Result {
	return diffRel(dialect, base, current, schema, nil, nil)
}

// diffRel is DiffSchema where each side's relations may stand for a name
// (a dbt parent's relation in each build's schema → the parent's name).
func diffRel(dialect, base, current string, schema map[string][]string, baseRel, curRel map[string]string) Result {
	d := sqlparse.LookupDialect(dialect)
	var p sqlparse.Parser
	bq, err := p.Parse(d, base)
	if err != nil {
		return Result{Error: parseError("base", err)}
	}
	cq, err := p.Parse(d, current)
	if err != nil {
		return Result{Error: parseError("current", err)}
	}
	return diffParsed(bq, cq, schema, baseRel, curRel)
}

// diffParsed compares two parsed queries; a bug of the walker on odd
// trees must not take a server down, so a panic becomes an error result.
func diffParsed(bq, cq *sqlparse.Query, schema map[string][]string, baseRel, curRel map[string]string) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{Error: &ParseError{Side: "current", Message: fmt.Sprintf("internal error while comparing the SQL (a bug in Ripple, please report it): %v", r)}}
		}
	}()
	normQuery(bq)
	normQuery(cq)
	c := newComparer(bq, cq, schema, baseRel, curRel)
	c.run()
	res.Changes = c.changes
	if res.Changes == nil {
		res.Changes = []Change{}
	}
	res.Cosmetic = len(res.Changes) == 0
	return res
}

func parseError(side string, err error) *ParseError {
	pe := &ParseError{Side: side, Message: err.Error()}
	var se *sqlparse.Error
	var ie *sqlparse.InternalError
	switch {
	case errors.As(err, &se):
		pe.Line, pe.Col = int(se.Pos.Line), int(se.Pos.Col)
	case errors.As(err, &ie):
		pe.Line, pe.Col = int(ie.Pos.Line), int(ie.Pos.Col)
	}
	return pe
}

// Summary is one line a reviewer can read: the first changes as
// "kind: before → after", the rest counted.
func (r Result) Summary() string {
	switch {
	case r.Error != nil:
		return "SQL not compared: the " + r.Error.Side + " SQL does not parse (" + r.Error.Message + ")"
	case r.Cosmetic:
		return "cosmetic only (no structural change)"
	}
	const shown = 2
	var parts []string
	for i, ch := range r.Changes {
		if i == shown {
			parts = append(parts, fmt.Sprintf("+%d more", len(r.Changes)-shown))
			break
		}
		parts = append(parts, ch.oneLine())
	}
	return strings.Join(parts, "; ")
}

// oneLine renders a change for Summary, dropping what both sides share at
// the start of the after side so the difference stands out.
func (ch Change) oneLine() string {
	const w = 60
	label := ch.Kind
	if ch.Scope != Final && ch.Scope != "" {
		label += " in " + ch.Scope
	}
	switch ch.Kind {
	case ColumnAdded:
		return label + ": " + nameFirst(ch.After, w)
	case ColumnRemoved:
		return label + ": " + nameFirst(ch.Before, w)
	case ColumnRenamed:
		return label + ": " + ch.Before + " → " + ch.After
	}
	switch {
	case ch.Before == "":
		return label + ": added " + clip(ch.After, w)
	case ch.After == "":
		return label + ": removed " + clip(ch.Before, w)
	}
	after := ch.After
	if n := commonWords(ch.Before, ch.After); ch.Kind == Filter && n > 0 && n < len(after) {
		after = after[n:]
	}
	return label + ": " + clip(ch.Before, w) + " → " + clip(after, w)
}

// nameFirst writes a select item "expr AS name" as "name = expr" so the
// name survives clipping.
func nameFirst(item string, w int) string {
	i := strings.LastIndex(item, " AS ")
	if i < 0 {
		return clip(item, w)
	}
	return item[i+4:] + " = " + clip(item[:i], w)
}

// commonWords is the length of the first word of b when a starts with
// it too and they differ later: "order_id NOT IN (1) → NOT IN (2)" keeps
// the operator, drops the repeated operand.
func commonWords(a, b string) int {
	sp := strings.IndexByte(b, ' ')
	if sp <= 0 || len(a) <= sp || a[:sp+1] != b[:sp+1] {
		return 0
	}
	return sp + 1
}

// clip shortens s to about n characters, cutting at a word and marking it.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
	}
	return s[:cut] + " …"
}

// capClause caps a clause's normalised text for Before/After.
func capClause(s string) string {
	if len(s) <= maxClause {
		return s
	}
	cut := maxClause
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
