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
	"context"
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

// MaxDepth bounds how deeply parentheses may nest. Warehouses refuse far
// less (DuckDB's max_expression_depth is 1,000); the bound keeps the
// classifier's recursion, and so its stack, bounded by a constant.
const MaxDepth = 1000

// cancelEvery is how many tokens the classifier handles between two looks
// at its context.
const cancelEvery = 1 << 12

// ReadOnly is Check without a context, for callers with nothing to cancel
// (short, trusted SQL).
func ReadOnly(dialect, sql string) (string, error) {
	return Check(context.Background(), dialect, sql)
}

// Check returns sql's single statement, trimmed and without trailing
// semicolons or comments, when it is exactly one read-only statement in the
// dialect (a Conn.Dialect() or dbt adapter name; unknown names get the
// strictest reading). Otherwise it returns an *Error, or ctx's error when
// ctx ends first. Its time is linear in len(sql): every token is visited a
// bounded number of times, parentheses are matched once up front, and
// nesting deeper than MaxDepth is refused.
func Check(ctx context.Context, dialect, sql string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
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
	if err := ctx.Err(); err != nil {
		return "", err
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
	c, err := newChecker(ctx, d.Name, stmts[0])
	if err != nil {
		return "", err
	}
	if err := c.statement(); err != nil {
		return "", err
	}
	lines := lineStarts(sql)
	text := sql[offset(sql, lines, stmts[0][0].Pos):offset(sql, lines, ends[0])]
	return strings.TrimSpace(text), nil
}

// checker classifies one statement's tokens. Its methods take half-open
// index ranges [lo, hi) into toks, so that nested parts share the tables
// built once for the whole statement.
type checker struct {
	ctx       context.Context
	rules     []rule
	fromFirst bool // DuckDB's FROM-first queries
	// tableFuncs, when set, is the allow-list of table functions (calls in
	// a FROM position): DuckDB's table functions can change the session
	// (enable_profiling, enable_peg_parser), so only those known to read
	// may run.
	tableFuncs map[string]bool
	toks       []sqlparse.Token
	// close[i] is the index of the ')' closing the '(' at i, or -1.
	close []int
	// open[i] is the first index >= i whose token is not '('.
	open  []int
	steps int
}

func newChecker(ctx context.Context, dialect string, toks []sqlparse.Token) (*checker, error) {
	c := &checker{ctx: ctx, rules: rulesFor(dialect), fromFirst: dialect == "duckdb" || dialect == "generic", toks: toks}
	if dialect == "duckdb" {
		c.tableFuncs = duckdbTableFunctions
	}
	c.close = make([]int, len(toks))
	var stack []int
	for i, t := range toks {
		c.close[i] = -1
		switch {
		case isOp(t, "("):
			if len(stack) == MaxDepth {
				return nil, &Error{Kind: KindSyntax, Msg: fmt.Sprintf("the SQL nests parentheses more than %d deep (line %d, column %d); no warehouse runs that, so Ripple refuses it", MaxDepth, t.Pos.Line, t.Pos.Col)}
			}
			stack = append(stack, i)
		case isOp(t, ")") && len(stack) > 0:
			c.close[stack[len(stack)-1]] = i
			stack = stack[:len(stack)-1]
		}
	}
	c.open = make([]int, len(toks)+1)
	c.open[len(toks)] = len(toks)
	for i := len(toks) - 1; i >= 0; i-- {
		c.open[i] = i
		if isOp(toks[i], "(") {
			c.open[i] = c.open[i+1]
		}
	}
	return c, nil
}

// tick counts work and reports the context's end every cancelEvery steps.
func (c *checker) tick() error {
	c.steps++
	if c.steps%cancelEvery == 0 {
		return c.ctx.Err()
	}
	return nil
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

// statement checks the whole top-level statement.
func (c *checker) statement() error {
	toks := c.toks
	first := toks[0]
	switch word(first) {
	case "SHOW", "DESCRIBE", "DESC":
		// Metadata reads; none runs a statement.
	case "SUMMARIZE":
		// DuckDB's SUMMARIZE reads a table or runs a query.
		if !dottedName(toks[1:]) && !c.callAt(1) {
			if err := c.query(1, len(toks)); err != nil {
				return err
			}
		}
	case "EXPLAIN":
		lo := c.skipExplainOptions(1, len(toks))
		if lo >= len(toks) {
			return refuse(first, "an EXPLAIN without a statement")
		}
		// EXPLAIN ANALYZE executes its statement.
		if err := c.query(lo, len(toks)); err != nil {
			return err
		}
	case "PIVOT", "UNPIVOT", "PIVOT_WIDER", "PIVOT_LONGER":
		// DuckDB's PIVOT statement reads a table or a query and returns
		// rows; other warehouses have PIVOT only inside FROM.
		if !c.fromFirst {
			return refuse(first, "a "+word(first)+" statement, which this warehouse does not run")
		}
	default:
		if err := c.query(0, len(toks)); err != nil {
			return err
		}
	}
	return c.scan()
}

// callAt reports whether a (qualified) name followed by '(' starts at
// toks[i]: a table function call, which scan checks.
func (c *checker) callAt(i int) bool {
	for i+1 < len(c.toks) && (c.toks[i].Kind == sqlparse.Ident || c.toks[i].Kind == sqlparse.QuotedIdent) {
		switch {
		case isOp(c.toks[i+1], "("):
			return true
		case isOp(c.toks[i+1], "."):
			i += 2
		default:
			return false
		}
	}
	return false
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

// startsQuery reports whether toks[i:hi] begin like a query (after
// parentheses), in constant time.
func (c *checker) startsQuery(i, hi int) bool {
	j := c.open[i]
	if j >= hi {
		return false
	}
	switch word(c.toks[j]) {
	case "SELECT", "WITH", "VALUES", "TABLE", "FROM":
		return true
	}
	return false
}

// skipExplainOptions returns the index after EXPLAIN's options in
// [lo, hi): ANALYZE, VERBOSE, a parenthesised option list, Snowflake's
// USING TEXT|JSON|TABULAR. It returns hi when nothing follows them.
func (c *checker) skipExplainOptions(lo, hi int) int {
	for lo < hi {
		switch w := word(c.toks[lo]); {
		case w == "ANALYZE" || w == "ANALYSE" || w == "VERBOSE":
			lo++
		case w == "USING" && lo+1 < hi:
			lo += 2
		case isOp(c.toks[lo], "(") && !c.startsQuery(lo, hi):
			end := c.close[lo]
			if end < 0 || end >= hi {
				return hi
			}
			lo = end + 1
		default:
			return lo
		}
	}
	return lo
}

// query checks that toks[lo:hi] start a read-only query: SELECT, VALUES,
// TABLE, FROM (DuckDB), a parenthesised query, or WITH whose every CTE body
// and main statement are such queries (Postgres allows DELETE ... RETURNING
// in a CTE).
func (c *checker) query(lo, hi int) error {
	lo = c.open[lo]
	if lo >= hi {
		return &Error{Kind: KindNotReadOnly, Msg: "the SQL has no query inside its parentheses; " + allowed}
	}
	t := c.toks[lo]
	switch w := word(t); w {
	case "SELECT", "VALUES", "TABLE":
		return nil
	case "FROM":
		if c.fromFirst {
			return nil
		}
		return refuse(t, "a FROM-first query, which this warehouse does not run")
	case "WITH":
		return c.with(lo+1, hi, t)
	case "":
		return &Error{Kind: KindSyntax, Msg: fmt.Sprintf("the SQL starts with %s (line %d, column %d), which does not begin a query; %s", describe(t), t.Pos.Line, t.Pos.Col, allowed)}
	default:
		if !statementWords[w] {
			return &Error{Kind: KindSyntax, Msg: fmt.Sprintf("the SQL starts with %s (line %d, column %d), which is not a SQL statement: check the spelling; %s", w, t.Pos.Line, t.Pos.Col, allowed)}
		}
		if (w == "PIVOT" || w == "UNPIVOT") && c.fromFirst {
			// DuckDB's PIVOT statement only reads.
			return nil
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

// with walks the CTE list of toks[lo:hi] (after WITH) and checks each body
// and the main statement. Each token at this nesting level is looked at a
// bounded number of times; nested parentheses are jumped with close.
func (c *checker) with(lo, hi int, at sqlparse.Token) error {
	toks := c.toks
	if lo < hi && word(toks[lo]) == "RECURSIVE" {
		lo++
	}
	for {
		// name [(columns)] [USING KEY (...)] AS [NOT] [MATERIALIZED] ( body )
		i := lo
		for i < hi && word(toks[i]) != "AS" {
			if err := c.tick(); err != nil {
				return err
			}
			if isOp(toks[i], "(") {
				if i = c.close[i]; i < 0 || i >= hi {
					return refuse(at, "a WITH query whose common table expressions cannot be read")
				}
			}
			i++
		}
		if i >= hi {
			return refuse(at, "a WITH query whose common table expressions cannot be read")
		}
		i++
		for i < hi && (word(toks[i]) == "NOT" || word(toks[i]) == "MATERIALIZED") {
			i++
		}
		if i >= hi || !isOp(toks[i], "(") {
			return refuse(at, "a WITH query whose common table expressions cannot be read")
		}
		end := c.close[i]
		if end < 0 || end >= hi {
			return refuse(at, "a WITH query with unbalanced parentheses")
		}
		if err := c.query(i+1, end); err != nil {
			return err
		}
		lo = end + 1
		// Postgres' SEARCH / CYCLE clauses follow a recursive CTE's body.
		for lo < hi && (word(toks[lo]) == "SEARCH" || word(toks[lo]) == "CYCLE") {
			j := lo + 1
			for j < hi && !c.startsQuery(j, hi) && !isOp(toks[j], ",") {
				if err := c.tick(); err != nil {
					return err
				}
				j++
			}
			lo = j
		}
		if lo < hi && isOp(toks[lo], ",") {
			lo++
			continue
		}
		if lo >= hi {
			return refuse(at, "a WITH query without a main statement")
		}
		return c.query(lo, hi)
	}
}

// tablePositionWords are the words after which a name followed by '('
// calls a table function.
var tablePositionWords = map[string]bool{"FROM": true, "JOIN": true, "LATERAL": true, "SUMMARIZE": true,
	"DESCRIBE": true, "DESC": true, "SHOW": true, "TABLE": true, "PIVOT": true, "UNPIVOT": true,
	"PIVOT_WIDER": true, "PIVOT_LONGER": true}

// clauseWords end a FROM clause at their nesting level (ON and USING do
// not: a comma after a join condition starts the next FROM item).
var clauseWords = map[string]bool{"SELECT": true, "WHERE": true, "GROUP": true, "HAVING": true, "QUALIFY": true,
	"WINDOW": true, "ORDER": true, "LIMIT": true, "OFFSET": true, "VALUES": true, "UNION": true, "INTERSECT": true,
	"EXCEPT": true, "RETURNING": true, "SET": true, "BY": true}

// clause is what scan knows of the clause open at one parenthesis depth.
type clause struct{ from, call bool }

// scan looks through every token of the statement for clauses that write
// or lock (SELECT ... INTO, FOR UPDATE/SHARE), for calls to functions with
// side effects and, where the dialect has an allow-list, for table
// functions not on it.
func (c *checker) scan() error {
	toks := c.toks
	// level[d] is the clause open at parenthesis depth d: whether it is a
	// FROM clause, so that "FROM t, f()" is told from "SELECT a, f()", and
	// whether the parentheses hold a call's arguments, where FROM is a
	// keyword of the call (extract(year FROM d), substring(s FROM 2)).
	level := []clause{{}}
	for i, t := range toks {
		if err := c.tick(); err != nil {
			return err
		}
		top := &level[len(level)-1]
		switch w := word(t); {
		case w == "INTO" && c.tableFuncs != nil && i+1 < len(toks) && word(toks[i+1]) == "NAME":
			// DuckDB's UNPIVOT ... INTO NAME n VALUE v names output columns.
		case w == "INTO":
			return refuse(t, "a query with INTO, which creates a table or writes variables")
		case w == "FOR":
			if i+1 < len(toks) {
				switch word(toks[i+1]) {
				case "UPDATE", "SHARE", "NO", "KEY":
					return refuse(t, "a query with FOR "+word(toks[i+1])+", which locks rows")
				}
			}
		case w == "FROM" && (top.call || i > 0 && word(toks[i-1]) == "DISTINCT"):
			// A call's keyword, or IS [NOT] DISTINCT FROM: no table follows.
		case w == "FROM" || w == "JOIN" || w == "PIVOT" || w == "UNPIVOT":
			top.from = true
		case clauseWords[w]:
			top.from = false
		case isOp(t, "("):
			call := i > 0 && (toks[i-1].Kind == sqlparse.Ident || toks[i-1].Kind == sqlparse.QuotedIdent) && !c.startsQuery(i+1, len(toks))
			level = append(level, clause{call: call})
		case isOp(t, ")") && len(level) > 1:
			level = level[:len(level)-1]
		}
		if (t.Kind == sqlparse.Ident || t.Kind == sqlparse.QuotedIdent) && i+1 < len(toks) && isOp(toks[i+1], "(") {
			if r, ok := match(c.rules, t.Text); ok {
				return &Error{Kind: KindSideEffect, Msg: fmt.Sprintf("the SQL calls %s (line %d, column %d), which %s; Ripple refuses it in agent SQL (grant Ripple's role no more than SELECT and USAGE, see docs/security.md)",
					t.Text, t.Pos.Line, t.Pos.Col, r.why)}
			}
			if c.tableFuncs != nil && !c.tableFuncs[strings.ToLower(t.Text)] && c.tablePosition(i, level[len(level)-1]) {
				return &Error{Kind: KindSideEffect, Msg: fmt.Sprintf("the SQL calls the table function %s (line %d, column %d), which is not one Ripple knows to only read (some change the session for every later query, such as enable_profiling); Ripple runs only the table functions listed in docs/security.md",
					t.Text, t.Pos.Line, t.Pos.Col)}
			}
		}
	}
	return nil
}

// tablePosition reports whether the (possibly qualified) name ending at
// toks[i] stands where a table function is called: right after FROM, JOIN,
// LATERAL (and DuckDB's statements that take a table), or after a comma in
// a FROM clause.
func (c *checker) tablePosition(i int, cl clause) bool {
	j := i
	for j >= 2 && isOp(c.toks[j-1], ".") && (c.toks[j-2].Kind == sqlparse.Ident || c.toks[j-2].Kind == sqlparse.QuotedIdent) {
		j -= 2
	}
	if j == 0 {
		return false
	}
	prev := c.toks[j-1]
	if w := word(prev); w == "FROM" {
		// Not a call's keyword (extract(year FROM now())) nor IS DISTINCT FROM.
		return !cl.call && !(j >= 2 && word(c.toks[j-2]) == "DISTINCT")
	} else if tablePositionWords[w] {
		return true
	}
	return cl.from && isOp(prev, ",")
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
