// Package sqlguard decides whether SQL from an agent or a user may run
// against the warehouse: exactly one statement, of a read-only kind, calling
// no function with effects outside the query. It reads the SQL with the
// dialect's own lexer rules (internal/sqlparse), because a guard that quotes
// differently from the warehouse can be walked around: `SELECT '\' ; SET
// ...; --'` is one string to a lexer with backslash escapes and three
// statements to DuckDB.
//
// The classifier is one layer: adapters also run SQL read-only (DuckDB files
// opened READ_ONLY with a locked configuration and single-statement prepares,
// Postgres in BEGIN READ ONLY with the extended protocol). See
// docs/security.md.
package sqlguard

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// Kind says why a statement was refused.
type Kind string

// Refusal kinds.
const (
	// KindEmpty: no statement at all (only space, comments or semicolons).
	KindEmpty Kind = "empty"
	// KindSyntax: the SQL cannot be read (an unterminated quote or comment,
	// a character the dialect does not allow).
	KindSyntax Kind = "syntax"
	// KindMultiple: more than one statement.
	KindMultiple Kind = "multiple_statements"
	// KindNotReadOnly: a statement kind that writes or changes the session
	// (INSERT, SET, ATTACH, COPY, SELECT ... INTO, FOR UPDATE, ...).
	KindNotReadOnly Kind = "not_read_only"
	// KindSideEffect: a call to a function with effects outside the query
	// (advisory locks, signalling backends, server files, ...).
	KindSideEffect Kind = "side_effect"
)

// Error is a refusal; its message is written for the person or agent who
// sent the SQL.
type Error struct {
	Kind Kind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// IsRefusal reports whether err is (or wraps) a classifier refusal.
func IsRefusal(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

const allowed = "Ripple runs only read-only queries (SELECT, WITH ... SELECT, VALUES, TABLE, SHOW, DESCRIBE, EXPLAIN)"

// ReadOnly returns sql's single statement, trimmed and without trailing
// semicolons or comments, when it is exactly one read-only statement in the
// dialect (a Conn.Dialect() or dbt adapter name; unknown names get the
// strictest reading). Otherwise it returns an *Error.
func ReadOnly(dialect, sql string) (string, error) {
	if i := strings.IndexByte(sql, 0); i >= 0 {
		// DuckDB reads a C string and stops there; Postgres refuses it.
		return "", &Error{Kind: KindSyntax, Msg: fmt.Sprintf("the SQL contains a NUL byte at offset %d, where warehouses stop reading; remove it", i)}
	}
	d := sqlparse.LookupDialect(dialect)
	toks, err := sqlparse.Lex(d, sql)
	if err != nil {
		var le *sqlparse.Error
		if errors.As(err, &le) {
			return "", &Error{Kind: KindSyntax, Msg: fmt.Sprintf("the SQL cannot be read at line %d, column %d: %s; Ripple refuses SQL it cannot split into statements exactly as the warehouse does", le.Pos.Line, le.Pos.Col, le.Msg)}
		}
		return "", &Error{Kind: KindSyntax, Msg: "the SQL cannot be read: " + err.Error()}
	}
	// Statements are the token runs between semicolons.
	var stmts [][]sqlparse.Token
	var ends []sqlparse.Pos // where each statement's text ends (its ';' or EOF)
	start := 0
	for i, t := range toks {
		if t.Kind == sqlparse.EOF || t.Kind == sqlparse.Op && t.Text == ";" {
			if i > start {
				stmts = append(stmts, toks[start:i])
				ends = append(ends, t.Pos)
			}
			start = i + 1
		}
	}
	switch {
	case len(stmts) == 0:
		return "", &Error{Kind: KindEmpty, Msg: "the SQL is empty: pass one SELECT statement"}
	case len(stmts) > 1:
		second := stmts[1][0]
		return "", &Error{Kind: KindMultiple, Msg: fmt.Sprintf("the SQL has more than one statement (a second one, %s, starts at line %d, column %d); Ripple runs exactly one read-only statement per call, so send them one at a time",
			describe(second), second.Pos.Line, second.Pos.Col)}
	}
	c := checker{rules: rulesFor(d.Name), fromFirst: d.Name == "duckdb" || d.Name == "generic"}
	if err := c.statement(stmts[0]); err != nil {
		return "", err
	}
	lines := lineStarts(sql)
	text := sql[offset(sql, lines, stmts[0][0].Pos):offset(sql, lines, ends[0])]
	return strings.TrimSpace(text), nil
}

// checker classifies one statement's tokens.
type checker struct {
	rules     []rule
	fromFirst bool // DuckDB's FROM-first queries
}

func word(t sqlparse.Token) string {
	if t.Kind != sqlparse.Ident {
		return ""
	}
	return strings.ToUpper(t.Text)
}

func isOp(t sqlparse.Token, op string) bool { return t.Kind == sqlparse.Op && t.Text == op }

// describe names a token for a message: the keyword, or the token itself.
func describe(t sqlparse.Token) string {
	if w := word(t); w != "" {
		return w
	}
	s := t.Text
	if len(s) > 20 {
		s = s[:20] + "..."
	}
	return fmt.Sprintf("%q", s)
}

func refuse(t sqlparse.Token, what string) *Error {
	return &Error{Kind: KindNotReadOnly, Msg: fmt.Sprintf("the SQL is %s (line %d, column %d); %s", what, t.Pos.Line, t.Pos.Col, allowed)}
}

// statement checks a whole top-level statement.
func (c *checker) statement(toks []sqlparse.Token) error {
	first := toks[0]
	switch word(first) {
	case "SHOW", "DESCRIBE", "DESC":
		// Metadata reads; none runs a statement.
	case "SUMMARIZE":
		// DuckDB's SUMMARIZE reads a table or runs a query.
		if rest := toks[1:]; !dottedName(rest) {
			if err := c.query(rest); err != nil {
				return err
			}
		}
	case "EXPLAIN":
		rest := skipExplainOptions(toks[1:])
		if len(rest) == 0 {
			return refuse(first, "an EXPLAIN without a statement")
		}
		// EXPLAIN ANALYZE executes its statement.
		if err := c.query(rest); err != nil {
			return err
		}
	default:
		if err := c.query(toks); err != nil {
			return err
		}
	}
	return c.scan(toks)
}

// dottedName reports whether toks are exactly a (qualified) name.
func dottedName(toks []sqlparse.Token) bool {
	for i, t := range toks {
		if i%2 == 1 {
			if !isOp(t, ".") {
				return false
			}
		} else if t.Kind != sqlparse.Ident && t.Kind != sqlparse.QuotedIdent {
			return false
		}
	}
	return len(toks)%2 == 1
}

// startsQuery reports whether toks begin like a query (after parentheses).
func startsQuery(toks []sqlparse.Token) bool {
	for len(toks) > 0 && isOp(toks[0], "(") {
		toks = toks[1:]
	}
	if len(toks) == 0 {
		return false
	}
	switch word(toks[0]) {
	case "SELECT", "WITH", "VALUES", "TABLE", "FROM":
		return true
	}
	return false
}

// skipExplainOptions drops EXPLAIN's options: ANALYZE, VERBOSE, a
// parenthesised option list, Snowflake's USING TEXT|JSON|TABULAR.
func skipExplainOptions(toks []sqlparse.Token) []sqlparse.Token {
	for len(toks) > 0 {
		switch w := word(toks[0]); {
		case w == "ANALYZE" || w == "ANALYSE" || w == "VERBOSE":
			toks = toks[1:]
		case w == "USING" && len(toks) > 1:
			toks = toks[2:]
		case isOp(toks[0], "(") && !startsQuery(toks):
			end := matching(toks, 0)
			if end < 0 {
				return nil
			}
			toks = toks[end+1:]
		default:
			return toks
		}
	}
	return toks
}

// matching returns the index of the ')' closing the '(' at toks[i], or -1.
func matching(toks []sqlparse.Token, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch {
		case isOp(toks[j], "("):
			depth++
		case isOp(toks[j], ")"):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// query checks that toks start a read-only query: SELECT, VALUES, TABLE,
// FROM (DuckDB), a parenthesised query, or WITH whose every CTE body and
// main statement are such queries (Postgres allows DELETE ... RETURNING in a
// CTE).
func (c *checker) query(toks []sqlparse.Token) error {
	for len(toks) > 0 && isOp(toks[0], "(") {
		toks = toks[1:]
	}
	if len(toks) == 0 {
		return &Error{Kind: KindNotReadOnly, Msg: "the SQL has no query inside its parentheses; " + allowed}
	}
	t := toks[0]
	switch w := word(t); w {
	case "SELECT", "VALUES", "TABLE":
		return nil
	case "FROM":
		if c.fromFirst {
			return nil
		}
		return refuse(t, "a FROM-first query, which this warehouse does not run")
	case "WITH":
		return c.with(toks[1:], t)
	case "":
		return &Error{Kind: KindSyntax, Msg: fmt.Sprintf("the SQL starts with %s (line %d, column %d), which does not begin a query; %s", describe(t), t.Pos.Line, t.Pos.Col, allowed)}
	default:
		if !statementWords[w] {
			return &Error{Kind: KindSyntax, Msg: fmt.Sprintf("the SQL starts with %s (line %d, column %d), which is not a SQL statement: check the spelling; %s", w, t.Pos.Line, t.Pos.Col, allowed)}
		}
		return refuse(t, "a "+w+" statement")
	}
}

// statementWords begin statements that are not read-only queries in one
// warehouse or another; any other first word is a typo, refused as such.
var statementWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`ABORT ALTER ANALYZE ATTACH BEGIN CALL CHECKPOINT CLOSE CLUSTER COMMENT COMMIT
		COPY CREATE DEALLOCATE DECLARE DELETE DETACH DISCARD DO DROP END EXECUTE EXPORT FETCH FORCE GET GRANT
		IMPORT INSERT INSTALL KILL LISTEN LIST LOAD LOCK MERGE MOVE MSCK NOTIFY OPTIMIZE PIVOT PRAGMA PREPARE PUT
		REFRESH REINDEX RELEASE REMOVE RENAME REPLACE RESET REVOKE ROLLBACK SAVEPOINT SECURITY SET START TRUNCATE
		UNDROP UNLISTEN UNLOAD UNPIVOT UPDATE UPSERT USE VACUUM`) {
		m[w] = true
	}
	return m
}()

// with walks the CTE list after WITH and checks each body and the main
// statement.
func (c *checker) with(toks []sqlparse.Token, at sqlparse.Token) error {
	if len(toks) > 0 && word(toks[0]) == "RECURSIVE" {
		toks = toks[1:]
	}
	for {
		// name [(columns)] [USING KEY (...)] AS [NOT] [MATERIALIZED] ( body )
		i := 0
		for i < len(toks) && word(toks[i]) != "AS" {
			if isOp(toks[i], "(") {
				if i = matching(toks, i); i < 0 {
					break
				}
			}
			i++
		}
		if i < 0 || i >= len(toks) {
			return refuse(at, "a WITH query whose common table expressions cannot be read")
		}
		i++
		for i < len(toks) && (word(toks[i]) == "NOT" || word(toks[i]) == "MATERIALIZED") {
			i++
		}
		if i >= len(toks) || !isOp(toks[i], "(") {
			return refuse(at, "a WITH query whose common table expressions cannot be read")
		}
		end := matching(toks, i)
		if end < 0 {
			return refuse(at, "a WITH query with unbalanced parentheses")
		}
		if err := c.query(toks[i+1 : end]); err != nil {
			return err
		}
		toks = toks[end+1:]
		// Postgres' SEARCH / CYCLE clauses follow a recursive CTE's body.
		for len(toks) > 0 && (word(toks[0]) == "SEARCH" || word(toks[0]) == "CYCLE") {
			j := 1
			for j < len(toks) && !startsQuery(toks[j:]) && !isOp(toks[j], ",") {
				j++
			}
			toks = toks[j:]
		}
		if len(toks) > 0 && isOp(toks[0], ",") {
			toks = toks[1:]
			continue
		}
		if len(toks) == 0 {
			return refuse(at, "a WITH query without a main statement")
		}
		return c.query(toks)
	}
}

// scan looks through every token of a statement for clauses that write or
// lock (SELECT ... INTO, FOR UPDATE/SHARE) and for calls to functions with
// side effects.
func (c *checker) scan(toks []sqlparse.Token) error {
	for i, t := range toks {
		switch word(t) {
		case "INTO":
			return refuse(t, "a query with INTO, which creates a table or writes variables")
		case "FOR":
			if i+1 < len(toks) {
				switch word(toks[i+1]) {
				case "UPDATE", "SHARE", "NO", "KEY":
					return refuse(t, "a query with FOR "+word(toks[i+1])+", which locks rows")
				}
			}
		}
		if (t.Kind == sqlparse.Ident || t.Kind == sqlparse.QuotedIdent) && i+1 < len(toks) && isOp(toks[i+1], "(") {
			if r, ok := match(c.rules, t.Text); ok {
				return &Error{Kind: KindSideEffect, Msg: fmt.Sprintf("the SQL calls %s (line %d, column %d), which %s; Ripple refuses it in agent SQL (grant Ripple's role no more than SELECT and USAGE, see docs/security.md)",
					t.Text, t.Pos.Line, t.Pos.Col, r.why)}
			}
		}
	}
	return nil
}

// lineStarts returns the byte offset of each line's first byte (lines are
// counted at '\n', as the lexer does).
func lineStarts(src string) []int {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// offset converts a lexer position (1-based line, and column in runes, or
// bytes on all-ASCII input, where the two agree) to a byte offset.
func offset(src string, lines []int, p sqlparse.Pos) int {
	line := int(p.Line) - 1
	if line < 0 {
		return 0
	}
	if line >= len(lines) {
		return len(src)
	}
	i := lines[line]
	for col := 1; col < int(p.Col) && i < len(src); col++ {
		_, size := utf8.DecodeRuneInString(src[i:])
		i += size
	}
	return i
}
