package sqlparse

import (
	"fmt"
	"strings"
)

// maxDepth bounds recursion so hostile input fails cleanly instead of
// exhausting the stack.
const maxDepth = 400

// reserved words cannot be implicit aliases; without this list
// "from t where x" would read "where" as t's alias.
var reserved = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true,
	"LIMIT": true, "OFFSET": true, "UNION": true, "INTERSECT": true, "EXCEPT": true, "MINUS": true,
	"JOIN": true, "ON": true, "USING": true, "LEFT": true, "RIGHT": true, "INNER": true, "FULL": true,
	"OUTER": true, "CROSS": true, "NATURAL": true, "WINDOW": true, "QUALIFY": true, "AS": true,
	"WITH": true, "LATERAL": true, "PIVOT": true, "UNPIVOT": true, "FETCH": true, "AND": true,
	"OR": true, "NOT": true, "IS": true, "IN": true, "BETWEEN": true, "LIKE": true, "ILIKE": true,
	"RLIKE": true, "CASE": true, "WHEN": true, "THEN": true, "ELSE": true, "END": true, "INTO": true,
	"ASOF": true, "POSITIONAL": true, "SEMI": true, "ANTI": true, "TABLESAMPLE": true,
	"RETURNING": true, "FOR": true, "APPLY": true, "SAMPLE": true, "CONNECT": true, "START": true,
	"MATCH_RECOGNIZE": true, "DISTINCT": true, "BY": true, "ALL": true, "VALUES": true,
	"EXCLUDE": true, "REPLACE": true, "RENAME": true, "OVER": true, "FILTER": true,
}

// Parse parses one query. A trailing ';' and comments are accepted.
func Parse(d Dialect, sql string) (q *Query, err error) {
	var p Parser
	return p.Parse(d, sql)
}

// Parser parses queries reusing its token buffer between calls; the AST
// does not reference the buffer. Node storage is allocated in blocks that
// later calls keep filling (never overwriting nodes already handed out),
// so ASTs stay valid after further calls. A Parser is not safe for
// concurrent use.
type Parser struct {
	toks []Token
	mem  nodeMem
}

// Parse parses one query like the package-level Parse.
func (pp *Parser) Parse(d Dialect, sql string) (q *Query, err error) {
	if cap(pp.toks) < len(sql)/5+4 {
		pp.toks = make([]Token, 0, len(sql)/5+4)
	}
	toks, err := lexInto(d, sql, pp.toks[:0])
	pp.toks = toks[:0]
	if err != nil {
		return nil, err
	}
	// Stacks are empty between calls unless a parse failed midway.
	clear(pp.mem.itemStack)
	clear(pp.mem.argStack)
	clear(pp.mem.cteStack)
	pp.mem.itemStack, pp.mem.argStack, pp.mem.cteStack = pp.mem.itemStack[:0], pp.mem.argStack[:0], pp.mem.cteStack[:0]
	p := &parser{d: d, toks: toks, nodeMem: &pp.mem}
	defer func() {
		if r := recover(); r != nil {
			q = nil
			if e, ok := r.(*Error); ok {
				err = e
				return
			}
			err = &Error{Pos: p.peek().Pos, Msg: fmt.Sprintf("internal parser error: %v", r)}
		}
	}()
	for p.acceptOp(";") {
	}
	if p.peek().Kind == EOF {
		p.fail("empty SQL: expected a SELECT statement")
	}
	p.skipDMLPrefix()
	q = p.parseQuery()
	for p.acceptOp(";") {
	}
	if t := p.peek(); t.Kind != EOF {
		p.failAt(t, "unexpected %s after the end of the query", describe(t))
	}
	return q, nil
}

// skipDMLPrefix skips INSERT ... / CREATE ... AS so that the SELECT of a
// DML statement can be analysed: lineage tools are often handed whole
// statements, and the target does not change the query's lineage.
func (p *parser) skipDMLPrefix() {
	t := p.peek()
	if !(isKw(t, "INSERT") || isKw(t, "CREATE") || isKw(t, "REPLACE")) {
		return
	}
	depth := 0
	for j := p.i; j < len(p.toks); j++ {
		u := p.toks[j]
		switch {
		case u.Kind == EOF:
			return
		case u.Kind == Op && u.Text == "(":
			if depth == 0 && j+1 < len(p.toks) && (isKw(p.toks[j+1], "SELECT") || isKw(p.toks[j+1], "WITH")) {
				p.i = j
				return
			}
			depth++
		case u.Kind == Op && u.Text == ")":
			depth--
		case depth == 0 && (isKw(u, "SELECT") || isKw(u, "WITH") || isKw(u, "VALUES")):
			p.i = j
			return
		}
	}
}

type parser struct {
	d     Dialect
	toks  []Token
	i     int
	depth int
	*nodeMem
}

// nodeMem holds the arenas and stacks of a Parser; it outlives one parse
// so that a block's unused tail serves the next query.
type nodeMem struct {
	itemStack []*SelectItem
	// Arenas for the most frequent nodes: one allocation per block
	// instead of one per node.
	cols     arena[ColumnRef]
	lits     arena[Literal]
	items    arena[SelectItem]
	binaries arena[Binary]
	funcs    arena[Func]
	queries  arena[Query]
	selects  arena[Select]
	joins    arena[Join]
	tables   arena[TableRef]
	cases    arena[Case]
	ctes     arena[CTE]
	casts    arena[Cast]
	stars    arena[Star]
	strBuf   []string
	// argStack collects function arguments (and cteStack a WITH clause's
	// CTEs) before they are copied, exactly sized, into a shared block.
	argStack  []Expr
	exprBuf   []Expr
	cteStack  []*CTE
	itemBuf   []*SelectItem
	tablesBuf []TableExpr
}

// arena hands out pointers into chunks that grow from 4 to 128 elements,
// so that rare node types cost little and frequent ones one allocation
// per 128 nodes.
type arena[T any] struct{ buf []T }

func (a *arena[T]) alloc() *T {
	if len(a.buf) == cap(a.buf) {
		a.buf = make([]T, 0, min(max(2*cap(a.buf), 4), 128))
	}
	a.buf = a.buf[:len(a.buf)+1]
	return &a.buf[len(a.buf)-1]
}

// carve returns a slice of length n cut from *buf (refilled with blocks of
// at least min elements); its capacity is capped so that an append copies.
func carve[T any](buf *[]T, n, minBlock int) []T {
	if cap(*buf)-len(*buf) < n {
		*buf = make([]T, 0, max(minBlock, n))
	}
	l := len(*buf)
	*buf = (*buf)[:l+n]
	return (*buf)[l : l+n : l+n]
}

// strs returns an empty slice with capacity n carved from a shared block;
// the capped capacity makes an append past n copy instead of overwriting.
func (p *parser) strs(n int) []string {
	if cap(p.strBuf)-len(p.strBuf) < n {
		p.strBuf = make([]string, 0, max(256, n))
	}
	l := len(p.strBuf)
	p.strBuf = p.strBuf[:l+n]
	return p.strBuf[l : l : l+n]
}

func describe(t Token) string {
	switch t.Kind {
	case EOF:
		return "end of input"
	case String:
		return fmt.Sprintf("string '%s'", t.Text)
	}
	return fmt.Sprintf("%q", t.Text)
}

func (p *parser) peek() Token {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return Token{Kind: EOF}
}

func (p *parser) peekN(n int) Token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return Token{Kind: EOF}
}

func (p *parser) advance() Token {
	t := p.peek()
	if p.i < len(p.toks) {
		p.i++
	}
	return t
}

func (p *parser) fail(format string, a ...any) {
	p.failAt(p.peek(), format, a...)
}

func (p *parser) failAt(t Token, format string, a ...any) {
	pos := t.Pos
	if pos.Line == 0 && len(p.toks) > 0 {
		pos = p.toks[len(p.toks)-1].Pos
	}
	panic(&Error{Pos: pos, Msg: fmt.Sprintf(format, a...)})
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail("query nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

func isKw(t Token, kw string) bool { return t.Kind == Ident && t.Upper() == kw }

func (p *parser) isKw(kw string) bool { return isKw(p.peek(), kw) }

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.Kind == Op && t.Text == op
}

func (p *parser) acceptKw(kws ...string) bool {
	for j, kw := range kws {
		if !isKw(p.peekN(j), kw) {
			return false
		}
	}
	p.i += len(kws)
	return true
}

func (p *parser) expectKw(kw string) {
	if !p.acceptKw(kw) {
		p.fail("expected %s, found %s", kw, describe(p.peek()))
	}
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectOp(op string) {
	if !p.acceptOp(op) {
		p.fail("expected %q, found %s", op, describe(p.peek()))
	}
}

// identText folds an identifier token per dialect.
func (p *parser) identText(t Token) string {
	if t.Kind == QuotedIdent {
		return t.Text
	}
	return p.d.FoldIdent(t.Text)
}

func isIdentTok(t Token) bool { return t.Kind == Ident || t.Kind == QuotedIdent }

// parseIdent reads any identifier, keywords included (used after AS and '.').
func (p *parser) parseIdent() (string, bool) {
	t := p.peek()
	if !isIdentTok(t) {
		p.fail("expected an identifier, found %s", describe(t))
	}
	p.i++
	return p.identText(t), t.Kind == QuotedIdent
}

func (p *parser) parseIdentList() []string {
	var out []string
	paren := p.acceptOp("(")
	for {
		s, _ := p.parseIdent()
		out = append(out, s)
		if !p.acceptOp(",") {
			break
		}
		if paren && p.isOp(")") {
			break
		}
	}
	if paren {
		p.expectOp(")")
	}
	return out
}

// ---- queries ----

func (p *parser) startsQuery() bool {
	t := p.peek()
	return isKw(t, "SELECT") || isKw(t, "WITH") || isKw(t, "VALUES") || isKw(t, "FROM") || isKw(t, "TABLE") && isIdentTok(p.peekN(1))
}

func (p *parser) parseQuery() *Query {
	p.enter()
	defer p.leave()
	q := p.queries.alloc()
	q.Pos = p.peek().Pos
	if p.acceptKw("WITH") {
		q.With = &With{Recursive: p.acceptKw("RECURSIVE")}
		mark := len(p.cteStack)
		for {
			c := p.ctes.alloc()
			c.Pos = p.peek().Pos
			c.Name, _ = p.parseIdent()
			if p.isOp("(") {
				c.Columns = p.parseIdentList()
			}
			p.expectKw("AS")
			p.acceptKw("NOT")
			p.acceptKw("MATERIALIZED")
			p.expectOp("(")
			c.Query = p.parseQuery()
			p.expectOp(")")
			p.cteStack = append(p.cteStack, c)
			if !p.acceptOp(",") {
				break
			}
			if p.startsQuery() && !p.isKw("WITH") {
				break // trailing comma after the last CTE
			}
		}
		q.With.CTEs = append([]*CTE(nil), p.cteStack[mark:]...)
		clear(p.cteStack[mark:])
		p.cteStack = p.cteStack[:mark]
	}
	q.Body = p.parseSetOps(0)
	p.parseQueryTail(q)
	return q
}

func (p *parser) parseQueryTail(q *Query) {
	for {
		switch {
		case p.acceptKw("ORDER", "BY"), p.acceptKw("SORT", "BY"), p.acceptKw("CLUSTER", "BY"), p.acceptKw("DISTRIBUTE", "BY"):
			q.OrderBy = append(q.OrderBy, p.parseOrderItems()...)
		case p.acceptKw("LIMIT"):
			if p.acceptKw("ALL") {
				continue
			}
			q.Limit = p.parseExpr()
			if p.acceptOp(",") {
				q.Offset = q.Limit
				q.Limit = p.parseExpr()
			}
		case p.acceptKw("OFFSET"):
			q.Offset = p.parseExpr()
			_ = p.acceptKw("ROWS") || p.acceptKw("ROW")
		case p.acceptKw("FETCH"):
			_ = p.acceptKw("FIRST") || p.acceptKw("NEXT")
			if !p.isKw("ROWS") && !p.isKw("ROW") {
				q.Limit = p.parseExpr()
			}
			_ = p.acceptKw("ROWS") || p.acceptKw("ROW")
			_ = p.acceptKw("ONLY") || p.acceptKw("WITH", "TIES")
		default:
			return
		}
	}
}

func setOpPrec(t Token) int {
	if t.Kind != Ident {
		return -1
	}
	switch t.Upper() {
	case "UNION", "EXCEPT", "MINUS":
		return 1
	case "INTERSECT":
		return 2
	}
	return -1
}

func (p *parser) parseSetOps(minPrec int) QueryBody {
	left := p.parseSetPrimary()
	for {
		t := p.peek()
		prec := setOpPrec(t)
		if prec < 0 || prec < minPrec {
			return left
		}
		p.i++
		op := &SetOp{Op: t.Upper()}
		if op.Op == "MINUS" {
			op.Op = "EXCEPT"
		}
		if p.acceptKw("ALL") {
			op.All = true
		} else {
			p.acceptKw("DISTINCT")
		}
		if p.acceptKw("BY", "NAME") {
			op.ByName = true
		}
		p.acceptKw("CORRESPONDING")
		op.Left = left
		op.Right = p.parseSetOps(prec + 1)
		left = op
	}
}

func (p *parser) parseSetPrimary() QueryBody {
	p.enter()
	defer p.leave()
	switch {
	case p.isOp("("):
		p.i++
		q := p.parseQuery()
		p.expectOp(")")
		return q
	case p.isKw("SELECT"), p.isKw("FROM"):
		return p.parseSelect()
	case p.isKw("VALUES"):
		return p.parseValues()
	case p.isKw("WITH"):
		return p.parseQuery()
	case p.isKw("TABLE"):
		p.i++
		tr := p.parseTableName()
		return &Select{Items: []*SelectItem{{Star: &Star{}}}, From: []TableExpr{tr}, Pos: tr.Pos}
	}
	p.fail("expected SELECT, found %s", describe(p.peek()))
	return nil
}

func (p *parser) parseValues() *Values {
	p.expectKw("VALUES")
	v := &Values{}
	for {
		if p.acceptOp("(") {
			var row []Expr
			if !p.isOp(")") {
				row = p.parseExprList()
			}
			p.expectOp(")")
			v.Rows = append(v.Rows, row)
		} else {
			v.Rows = append(v.Rows, []Expr{p.parseExpr()})
		}
		if !p.acceptOp(",") {
			return v
		}
	}
}

func (p *parser) isClauseStart() bool {
	t := p.peek()
	if t.Kind == EOF || t.Kind == Op && (t.Text == ")" || t.Text == ";") {
		return true
	}
	if t.Kind != Ident {
		return false
	}
	switch t.Upper() {
	case "FROM", "WHERE", "GROUP", "HAVING", "QUALIFY", "WINDOW", "ORDER", "LIMIT", "UNION",
		"INTERSECT", "EXCEPT", "MINUS", "OFFSET", "FETCH", "INTO":
		return true
	case "SORT", "CLUSTER", "DISTRIBUTE":
		return isKw(p.peekN(1), "BY")
	}
	return false
}

func (p *parser) parseSelect() *Select {
	s := p.selects.alloc()
	s.Pos = p.peek().Pos
	sawSelect := false
	if p.isKw("FROM") {
		p.i++
		s.From = p.parseFromList()
	}
	if p.acceptKw("SELECT") {
		sawSelect = true
		p.parseSelectList(s)
	} else if s.From == nil {
		p.fail("expected SELECT, found %s", describe(p.peek()))
	} else {
		s.ImplicitStar = true
		s.Items = []*SelectItem{{Star: &Star{}, Pos: s.Pos}}
	}
	for {
		switch {
		case s.From == nil && p.acceptKw("FROM"):
			s.From = p.parseFromList()
		case !sawSelect && p.acceptKw("SELECT"):
			sawSelect = true
			s.ImplicitStar = false
			s.Items = nil
			p.parseSelectList(s)
		case p.acceptKw("INTO"):
			p.acceptKw("TEMP")
			p.acceptKw("TEMPORARY")
			p.parseName()
		case s.Where == nil && p.acceptKw("WHERE"):
			s.Where = p.parseExpr()
		case s.GroupBy == nil && !s.GroupByAll && p.acceptKw("GROUP", "BY"):
			p.parseGroupBy(s)
		case s.Having == nil && p.acceptKw("HAVING"):
			s.Having = p.parseExpr()
		case s.Qualify == nil && p.acceptKw("QUALIFY"):
			s.Qualify = p.parseExpr()
		case p.acceptKw("WINDOW"):
			if s.Windows == nil {
				s.Windows = map[string]*WindowSpec{}
			}
			for {
				name, _ := p.parseIdent()
				p.expectKw("AS")
				p.expectOp("(")
				s.Windows[strings.ToUpper(name)] = p.parseWindowBody()
				if !p.acceptOp(",") {
					break
				}
			}
		default:
			return s
		}
	}
}

func (p *parser) parseGroupBy(s *Select) {
	if p.acceptKw("ALL") {
		s.GroupByAll = true
		return
	}
	for {
		if p.acceptKw("GROUPING", "SETS") {
			s.GroupBy = append(s.GroupBy, p.parsePrimary())
		} else if p.isClauseStart() {
			return // trailing comma
		} else {
			s.GroupBy = append(s.GroupBy, p.parseExpr())
		}
		if !p.acceptOp(",") {
			break
		}
	}
	if p.acceptKw("WITH", "ROLLUP") || p.acceptKw("WITH", "CUBE") {
		return
	}
}

func (p *parser) parseSelectList(s *Select) {
	if p.acceptKw("DISTINCT") {
		s.Distinct = true
		if p.acceptKw("ON") {
			p.expectOp("(")
			s.DistinctOn = p.parseExprList()
			p.expectOp(")")
		}
	} else {
		p.acceptKw("ALL")
	}
	if p.isKw("TOP") && p.peekN(1).Kind == Number {
		p.i += 2
	}
	// Collect items on a shared stack and copy once: select lists are long
	// and growing each one was a top allocation site.
	mark := len(p.itemStack)
	defer func() {
		s.Items = carve(&p.itemBuf, len(p.itemStack)-mark, 64)
		copy(s.Items, p.itemStack[mark:])
		clear(p.itemStack[mark:])
		p.itemStack = p.itemStack[:mark]
	}()
	for {
		if p.isClauseStart() && len(p.itemStack) > mark {
			return // trailing comma
		}
		p.itemStack = append(p.itemStack, p.parseSelectItem())
		if !p.acceptOp(",") {
			return
		}
	}
}

func (p *parser) parseSelectItem() *SelectItem {
	t := p.peek()
	it := p.items.alloc()
	it.Pos = t.Pos
	// *, t.*, db.t.*
	if t.Kind == Op && t.Text == "*" {
		p.i++
		it.Star = p.stars.alloc()
		p.parseStarModifiers(it.Star)
		return it
	}
	if isIdentTok(t) {
		j := 0
		for isIdentTok(p.peekN(j)) && p.peekN(j+1).Kind == Op && p.peekN(j+1).Text == "." {
			j += 2
			if nt := p.peekN(j); nt.Kind == Op && nt.Text == "*" {
				st := &Star{}
				for k := 0; k < j; k += 2 {
					st.Qualifier = append(st.Qualifier, p.identText(p.peekN(k)))
				}
				p.i += j + 1
				it.Star = st
				p.parseStarModifiers(st)
				return it
			}
		}
		if isKw(t, "COLUMNS") && p.peekN(1).Kind == Op && p.peekN(1).Text == "(" {
			save := p.i
			p.i += 2
			st := &Star{Columns: true}
			switch nt := p.peek(); {
			case nt.Kind == String:
				st.Regex = nt.Text
				p.i++
			case nt.Kind == Op && nt.Text == "*":
				p.i++
			default:
				// A lambda or list selector: keep it as an unfiltered star.
				p.parseExpr()
				st.Regex = ""
			}
			if p.acceptOp(")") && (p.isClauseStart() || p.isOp(",") || p.isKw("AS") || isIdentTok(p.peek())) {
				it.Star = st
				if p.acceptKw("AS") {
					p.parseIdent()
				}
				return it
			}
			p.i = save
		}
	}
	it.Expr = p.parseExpr()
	p.parseAlias(&it.Alias, &it.AliasQuoted)
	return it
}

// parseAlias reads [AS] alias, accepting a string alias ('name') too.
func (p *parser) parseAlias(alias *string, quoted *bool) bool {
	t := p.peek()
	if isKw(t, "AS") {
		p.i++
		t = p.peek()
		if t.Kind == String {
			p.i++
			*alias = t.Text
			*quoted = true
			return true
		}
		*alias, *quoted = p.parseIdent()
		return true
	}
	if t.Kind == QuotedIdent || t.Kind == Ident && !reserved[t.Upper()] {
		p.i++
		*alias, *quoted = p.identText(t), t.Kind == QuotedIdent
		return true
	}
	if t.Kind == String && p.d.Name != "snowflake" {
		// 'alias' without AS appears in generic and Spark SQL.
		nt := p.peekN(1)
		if nt.Kind == EOF || nt.Kind == Op && (nt.Text == "," || nt.Text == ")" || nt.Text == ";") || nt.Kind == Ident && reserved[nt.Upper()] {
			p.i++
			*alias = t.Text
			*quoted = true
			return true
		}
	}
	return false
}

func (p *parser) parseStarModifiers(st *Star) {
	for {
		switch {
		case p.isKw("ILIKE") && p.peekN(1).Kind == String:
			st.ILike = p.peekN(1).Text
			st.HasILike = true
			p.i += 2
		case p.isKw("LIKE") && p.peekN(1).Kind == String:
			st.ILike = p.peekN(1).Text
			st.HasILike = true
			p.i += 2
		case p.isKw("EXCLUDE"):
			p.i++
			st.Exclude = append(st.Exclude, p.parseStarNameList()...)
		case p.isKw("EXCEPT") && p.peekN(1).Kind == Op && p.peekN(1).Text == "(" && !isKw(p.peekN(2), "SELECT") && !isKw(p.peekN(2), "WITH"):
			p.i++
			st.Exclude = append(st.Exclude, p.parseStarNameList()...)
		case p.isKw("REPLACE") && p.peekN(1).Kind == Op && p.peekN(1).Text == "(":
			p.i += 2
			for {
				it := &SelectItem{Pos: p.peek().Pos, Expr: p.parseExpr()}
				p.acceptKw("AS")
				it.Alias, it.AliasQuoted = p.parseIdent()
				st.Replace = append(st.Replace, it)
				if !p.acceptOp(",") || p.isOp(")") {
					break
				}
			}
			p.expectOp(")")
		case p.isKw("RENAME"):
			p.i++
			paren := p.acceptOp("(")
			for {
				from := p.parseDottedLast()
				p.acceptKw("AS")
				to, _ := p.parseIdent()
				st.Rename = append(st.Rename, [2]string{from, to})
				if !paren || !p.acceptOp(",") || p.isOp(")") {
					break
				}
			}
			if paren {
				p.expectOp(")")
			}
		default:
			return
		}
	}
}

// parseDottedLast reads a possibly qualified column name and returns its last part.
func (p *parser) parseDottedLast() string {
	s, _ := p.parseIdent()
	for p.isOp(".") && isIdentTok(p.peekN(1)) {
		p.i++
		s, _ = p.parseIdent()
	}
	return s
}

func (p *parser) parseStarNameList() []string {
	if !p.acceptOp("(") {
		return []string{p.parseDottedLast()}
	}
	var out []string
	for !p.isOp(")") {
		out = append(out, p.parseDottedLast())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return out
}

// ---- FROM ----

func (p *parser) parseFromList() []TableExpr {
	first := p.parseJoinTree()
	if !p.isOp(",") {
		out := carve(&p.tablesBuf, 1, 16)
		out[0] = first
		return out
	}
	out := []TableExpr{first}
	for {
		if !p.acceptOp(",") {
			return out
		}
		if p.isClauseStart() {
			return out
		}
		out = append(out, p.parseJoinTree())
	}
}

func (p *parser) parseJoinTree() TableExpr {
	left := p.parseTablePrimary()
	for {
		if p.isKw("LATERAL") && isKw(p.peekN(1), "VIEW") {
			left = &Join{Type: "CROSS", Left: left, Right: p.parseLateralView()}
			continue
		}
		var j Join
		save := p.i
		if p.acceptKw("NATURAL") {
			j.Natural = true
		}
		switch {
		case p.acceptKw("JOIN"):
			j.Type = "INNER"
		case p.acceptKw("INNER", "JOIN"):
			j.Type = "INNER"
		case p.acceptKw("CROSS", "JOIN"):
			j.Type = "CROSS"
		case p.acceptKw("CROSS", "APPLY"):
			j.Type = "CROSS"
		case p.acceptKw("OUTER", "APPLY"):
			j.Type = "LEFT"
		case p.acceptKw("POSITIONAL", "JOIN"):
			j.Type = "POSITIONAL"
		case p.acceptKw("SEMI", "JOIN"), p.acceptKw("LEFT", "SEMI", "JOIN"):
			j.Type = "SEMI"
		case p.acceptKw("ANTI", "JOIN"), p.acceptKw("LEFT", "ANTI", "JOIN"):
			j.Type = "ANTI"
		case p.isKw("ASOF"):
			p.i++
			j.Type = "ASOF"
			p.acceptKw("LEFT")
			p.acceptKw("OUTER")
			p.expectKw("JOIN")
		case p.isKw("LEFT") || p.isKw("RIGHT") || p.isKw("FULL"):
			j.Type = p.advance().Upper()
			p.acceptKw("OUTER")
			if !p.acceptKw("JOIN") {
				p.i = save
				return left
			}
		default:
			p.i = save
			return left
		}
		j.Left = left
		j.Right = p.parseTablePrimary()
		if p.acceptKw("ON") {
			j.On = p.parseExpr()
		} else if p.acceptKw("USING") {
			j.Using = p.parseIdentList()
		}
		jp := p.joins.alloc()
		*jp = j
		left = jp
	}
}

// parseLateralView reads Hive/Spark LATERAL VIEW [OUTER] f(args) t AS c1, c2.
func (p *parser) parseLateralView() TableExpr {
	p.expectKw("LATERAL")
	p.expectKw("VIEW")
	p.acceptKw("OUTER")
	n := p.parseName()
	tf := &TableFunc{Func: p.parseFuncCall(n), Lateral: true}
	if t := p.peek(); isIdentTok(t) && !isKw(t, "AS") && !reserved[t.Upper()] {
		tf.Alias, _ = p.parseIdent()
	}
	if p.acceptKw("AS") {
		for {
			c, _ := p.parseIdent()
			tf.ColAliases = append(tf.ColAliases, c)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	return tf
}

func (p *parser) parseTableName() *TableRef {
	n := p.parseName()
	return &TableRef{Name: n, Pos: n.Pos}
}

func (p *parser) parseName() Name { return p.parseNameOpt(false) }

// adjacent reports whether token b starts right where token a ends.
func adjacent(a, b Token) bool {
	return a.Kind == Ident && a.Pos.Line == b.Pos.Line && int(b.Pos.Col) == int(a.Pos.Col)+len([]rune(a.Text))
}

// parseNameOpt reads a dotted name; with hyphens set, BigQuery's unquoted
// project ids (my-project.dataset.table) are joined back together.
func (p *parser) parseNameOpt(hyphens bool) Name {
	t := p.peek()
	n := Name{Pos: t.Pos}
	// Size Parts exactly: names are the parser's most frequent allocation.
	parts := 1
	for j := 1; p.peekN(j).Kind == Op && p.peekN(j).Text == "." && isIdentTok(p.peekN(j+1)); j += 2 {
		parts++
	}
	n.Parts = p.strs(parts)
	for {
		if hyphens && isIdentTok(p.peek()) {
			first := p.peek()
			text := first.Text
			j := 0
			for adjacent(p.peekN(j), p.peekN(j+1)) && p.peekN(j+1).Kind == Op && p.peekN(j+1).Text == "-" {
				nt := p.peekN(j + 2)
				if (nt.Kind != Ident && nt.Kind != Number) || nt.Pos.Col != p.peekN(j+1).Pos.Col+1 || nt.Pos.Line != first.Pos.Line {
					break
				}
				text += "-" + nt.Text
				j += 2
				// Number tokens are not Ident, so adjacency stops after one.
				if nt.Kind == Number {
					nt.Kind = Ident
				}
			}
			if j > 0 {
				p.i += j + 1
				n.setQuoted(len(n.Parts))
				n.Parts = append(n.Parts, text)
				if p.isOp(".") && isIdentTok(p.peekN(1)) {
					p.i++
					continue
				}
				return n
			}
		}
		if bt := p.peek(); bt.Backtick && strings.Contains(bt.Text, ".") {
			p.i++
			for _, part := range strings.Split(bt.Text, ".") {
				n.setQuoted(len(n.Parts))
				n.Parts = append(n.Parts, part)
			}
			if p.isOp(".") && isIdentTok(p.peekN(1)) {
				p.i++
				continue
			}
			return n
		}
		s, q := p.parseIdent()
		if q {
			n.setQuoted(len(n.Parts))
		}
		n.Parts = append(n.Parts, s)
		if p.isOp(".") && isIdentTok(p.peekN(1)) {
			p.i++
			continue
		}
		// Spark/Databricks: "db..table" is not a thing; stop here.
		return n
	}
}

func (p *parser) parseTableAlias(alias *string, cols *[]string) {
	var q bool
	t := p.peek()
	if isKw(t, "AS") || t.Kind == QuotedIdent || t.Kind == Ident && !reserved[t.Upper()] && !isTableModifier(t.Upper()) {
		if !p.parseAlias(alias, &q) {
			return
		}
		if p.isOp("(") && isIdentTok(p.peekN(1)) {
			*cols = p.parseIdentList()
		}
	}
}

func isTableModifier(u string) bool {
	switch u {
	case "AT", "BEFORE", "CHANGES", "TABLESAMPLE", "SAMPLE", "FINAL", "WITH", "MATCH_RECOGNIZE", "OFFSET", "USE", "FORCE", "IGNORE":
		return true
	}
	return false
}

func (p *parser) parseTablePrimary() TableExpr {
	p.enter()
	defer p.leave()
	lateral := p.acceptKw("LATERAL")
	var te TableExpr
	t := p.peek()
	switch {
	case t.Kind == Op && t.Text == "(":
		te = p.parseParenTable(lateral)
	case isKw(t, "VALUES"):
		vt := &ValuesTable{Values: p.parseValues()}
		p.parseTableAlias(&vt.Alias, &vt.ColAliases)
		te = vt
	case isKw(t, "TABLE") && p.peekN(1).Kind == Op && p.peekN(1).Text == "(":
		p.i += 2
		e := p.parseExpr()
		p.expectOp(")")
		f, ok := e.(*Func)
		if !ok {
			f = &Func{Name: Name{Parts: []string{"TABLE"}}, Args: []Expr{e}}
		}
		tf := &TableFunc{Func: f, Lateral: true}
		p.parseTableAlias(&tf.Alias, &tf.ColAliases)
		te = tf
	case t.Kind == String:
		// DuckDB reads files named by a string: FROM 'data.csv'.
		p.i++
		tr := &TableRef{Name: Name{Parts: []string{t.Text}, Quoted: 1, Pos: t.Pos}, Pos: t.Pos}
		p.parseTableAlias(&tr.Alias, &tr.ColAliases)
		te = tr
	case t.Kind == Ident && reserved[t.Upper()]:
		p.fail("expected a table, found keyword %s", t.Upper())
	case isIdentTok(t):
		n := p.parseNameOpt(p.d.Name == "bigquery" || p.d.Name == "generic")
		if p.isOp("(") {
			f := p.parseFuncCall(n)
			tf := &TableFunc{Func: f, Lateral: lateral}
			p.parseTableAlias(&tf.Alias, &tf.ColAliases)
			if p.acceptKw("WITH", "OFFSET") {
				tf.WithOffset = true
				var q bool
				p.parseAlias(&tf.OffsetAlias, &q)
			}
			te = tf
		} else {
			tr := p.tables.alloc()
			tr.Name, tr.Pos = n, n.Pos
			p.skipTableModifiers()
			p.parseTableAlias(&tr.Alias, &tr.ColAliases)
			te = tr
		}
	default:
		p.fail("expected a table, found %s", describe(t))
	}
	p.skipTableModifiers()
	for {
		switch {
		case p.isKw("PIVOT") && p.peekN(1).Kind == Op && p.peekN(1).Text == "(":
			te = p.parsePivot(te)
		case p.isKw("UNPIVOT"):
			te = p.parseUnpivot(te)
		default:
			return te
		}
	}
}

// skipTableModifiers drops time travel, sampling and hints: they change
// which rows are read, not which columns.
func (p *parser) skipTableModifiers() {
	for {
		switch {
		case (p.isKw("AT") || p.isKw("BEFORE") || p.isKw("CHANGES")) && p.peekN(1).Kind == Op && p.peekN(1).Text == "(":
			p.i++
			p.skipParens()
		case p.isKw("TABLESAMPLE") || p.isKw("SAMPLE") || p.isKw("USING") && isKw(p.peekN(1), "SAMPLE"):
			if p.acceptKw("USING") {
				p.i++
				for !p.isClauseStart() && !p.isOp(",") && !p.isOp(")") {
					if p.isOp("(") {
						p.skipParens()
					} else {
						p.i++
					}
				}
				continue
			}
			p.i++
			if isIdentTok(p.peek()) && p.peekN(1).Kind == Op && p.peekN(1).Text == "(" {
				p.i++
			}
			if p.isOp("(") {
				p.skipParens()
			}
			if p.acceptKw("REPEATABLE") || p.acceptKw("SEED") {
				p.skipParens()
			}
		case p.isKw("FOR") && (isKw(p.peekN(1), "SYSTEM_TIME") || isKw(p.peekN(1), "TIMESTAMP") || isKw(p.peekN(1), "VERSION")):
			p.i += 2
			p.acceptKw("AS")
			p.acceptKw("OF")
			p.parseExpr()
		case p.isKw("FINAL"):
			p.i++
		case p.isKw("WITH") && p.peekN(1).Kind == Op && p.peekN(1).Text == "(":
			p.i++
			p.skipParens()
		default:
			return
		}
	}
}

func (p *parser) skipParens() {
	p.expectOp("(")
	depth := 1
	for depth > 0 {
		t := p.advance()
		switch {
		case t.Kind == EOF:
			p.failAt(t, "unbalanced parentheses")
		case t.Kind == Op && t.Text == "(":
			depth++
		case t.Kind == Op && t.Text == ")":
			depth--
		}
	}
}

func (p *parser) parseParenTable(lateral bool) TableExpr {
	save := p.i
	p.expectOp("(")
	if p.startsQuery() || p.isOp("(") {
		if q, ok := p.tryParse(func() any { q := p.parseQuery(); p.expectOp(")"); return q }); ok {
			dt := &DerivedTable{Query: q.(*Query), Lateral: lateral}
			p.parseTableAlias(&dt.Alias, &dt.ColAliases)
			return dt
		}
		p.i = save + 1
	}
	inner := p.parseJoinTree()
	p.expectOp(")")
	pt := &ParenTable{Inner: inner}
	var cols []string
	p.parseTableAlias(&pt.Alias, &cols)
	return pt
}

// tryParse runs f and rewinds on a syntax error, for the few places where
// SQL needs unbounded lookahead (a '(' may open a query or a join tree).
func (p *parser) tryParse(f func() any) (v any, ok bool) {
	save, depth := p.i, p.depth
	defer func() {
		if r := recover(); r != nil {
			if _, isErr := r.(*Error); !isErr {
				panic(r)
			}
			p.i, p.depth = save, depth
			v, ok = nil, false
		}
	}()
	return f(), true
}

func (p *parser) parsePivot(src TableExpr) TableExpr {
	p.expectKw("PIVOT")
	p.expectOp("(")
	pv := &Pivot{Source: src}
	for {
		it := &SelectItem{Pos: p.peek().Pos, Expr: p.parseExpr()}
		p.parseAlias(&it.Alias, &it.AliasQuoted)
		pv.Aggs = append(pv.Aggs, it)
		if !p.acceptOp(",") {
			break
		}
	}
	for p.acceptKw("FOR") {
		pv.For = append(pv.For, p.parsePivotForTarget())
		p.expectKw("IN")
		p.expectOp("(")
		if p.acceptKw("ANY") {
			if p.acceptKw("ORDER", "BY") {
				p.parseOrderItems()
			}
		} else if p.startsQuery() {
			p.parseQuery()
		} else {
			for !p.isOp(")") {
				it := &SelectItem{Pos: p.peek().Pos, Expr: p.parseExpr()}
				p.parseAlias(&it.Alias, &it.AliasQuoted)
				pv.In = append(pv.In, it)
				if !p.acceptOp(",") {
					break
				}
			}
		}
		p.expectOp(")")
	}
	if p.acceptKw("GROUP", "BY") {
		p.parseExprList()
	}
	if p.acceptKw("DEFAULT", "ON", "NULL") {
		p.skipParens()
	}
	p.expectOp(")")
	p.parseTableAlias(&pv.Alias, &pv.ColAliases)
	return pv
}

// parsePivotForTarget reads a FOR column (or a tuple of columns) without
// treating the following IN as an IN-predicate.
func (p *parser) parsePivotForTarget() Expr {
	if p.acceptOp("(") {
		l := &List{Kind: "ROW"}
		for {
			n := p.parseName()
			l.Items = append(l.Items, &ColumnRef{Name: n})
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
		return l
	}
	n := p.parseName()
	return &ColumnRef{Name: n}
}

func (p *parser) parseUnpivot(src TableExpr) TableExpr {
	p.expectKw("UNPIVOT")
	if p.acceptKw("INCLUDE", "NULLS") || p.acceptKw("EXCLUDE", "NULLS") {
	}
	p.expectOp("(")
	up := &Unpivot{Source: src}
	if p.isOp("(") {
		up.ValueCols = p.parseIdentList()
	} else {
		s, _ := p.parseIdent()
		up.ValueCols = []string{s}
	}
	p.expectKw("FOR")
	up.NameCol, _ = p.parseIdent()
	p.expectKw("IN")
	p.expectOp("(")
	for !p.isOp(")") {
		it := &SelectItem{Pos: p.peek().Pos}
		if p.isOp("(") {
			l := &List{Kind: "ROW"}
			p.i++
			for {
				l.Items = append(l.Items, &ColumnRef{Name: p.parseName()})
				if !p.acceptOp(",") {
					break
				}
			}
			p.expectOp(")")
			it.Expr = l
		} else {
			it.Expr = &ColumnRef{Name: p.parseName()}
		}
		if p.acceptKw("AS") {
			t := p.advance()
			it.Alias = t.Text
		}
		up.In = append(up.In, it)
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	p.expectOp(")")
	p.parseTableAlias(&up.Alias, &up.ColAliases)
	return up
}

// ---- expressions ----

func (p *parser) parseExprList() []Expr {
	var out []Expr
	for {
		out = append(out, p.parseExpr())
		if !p.acceptOp(",") {
			return out
		}
		if p.isOp(")") {
			return out
		}
	}
}

func (p *parser) parseOrderItems() []OrderItem {
	var out []OrderItem
	for {
		if p.isClauseStart() && len(out) > 0 {
			return out
		}
		it := OrderItem{Expr: p.parseExpr()}
		if p.acceptKw("DESC") {
			it.Desc = true
		} else {
			p.acceptKw("ASC")
		}
		if p.acceptKw("NULLS") {
			_ = p.acceptKw("FIRST") || p.acceptKw("LAST")
		}
		out = append(out, it)
		if !p.acceptOp(",") {
			return out
		}
	}
}

func (p *parser) parseExpr() Expr {
	p.enter()
	defer p.leave()
	return p.parseOr()
}

func (p *parser) parseOr() Expr {
	left := p.parseAnd()
	for p.acceptKw("OR") {
		left = &Binary{Op: "OR", Left: left, Right: p.parseAnd()}
	}
	return left
}

func (p *parser) parseAnd() Expr {
	left := p.parseNot()
	for p.acceptKw("AND") {
		left = &Binary{Op: "AND", Left: left, Right: p.parseNot()}
	}
	return left
}

func (p *parser) parseNot() Expr {
	if p.isKw("NOT") {
		p.i++
		p.enter()
		defer p.leave()
		return &Unary{Op: "NOT", Expr: p.parseNot()}
	}
	return p.parseComparison()
}

var cmpOps = map[string]bool{"=": true, "==": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true,
	"~": true, "!~": true, "~*": true, "!~*": true, "@>": true, "<@": true, "&&": true, "<=>": true}

func (p *parser) parseComparison() Expr {
	left := p.parseBinary(0)
	for {
		t := p.peek()
		if t.Kind == Op && cmpOps[t.Text] {
			p.i++
			// x = ANY(...) / ALL(...)
			if (p.isKw("ANY") || p.isKw("ALL") || p.isKw("SOME")) && p.peekN(1).Kind == Op && p.peekN(1).Text == "(" {
				p.i++
			}
			b := p.binaries.alloc()
			b.Op, b.Left = t.Text, left
			b.Right = p.parseBinary(0)
			left = b
			continue
		}
		not := false
		if isKw(t, "NOT") {
			nt := p.peekN(1)
			if isKw(nt, "IN") || isKw(nt, "LIKE") || isKw(nt, "ILIKE") || isKw(nt, "BETWEEN") || isKw(nt, "RLIKE") || isKw(nt, "REGEXP") || isKw(nt, "SIMILAR") {
				not = true
				p.i++
				t = p.peek()
			} else {
				return left
			}
		}
		switch {
		case isKw(t, "IS"):
			p.i++
			neg := p.acceptKw("NOT")
			op := "IS"
			if neg {
				op = "IS NOT"
			}
			var right Expr
			switch {
			case p.acceptKw("DISTINCT", "FROM"):
				right = p.parseBinary(0)
				op += " DISTINCT FROM"
			case p.isKw("NULL") || p.isKw("TRUE") || p.isKw("FALSE") || p.isKw("UNKNOWN"):
				right = &Literal{Kind: "keyword", Value: p.advance().Upper()}
			default:
				right = p.parseBinary(0)
			}
			left = &Binary{Op: op, Left: left, Right: right}
		case isKw(t, "ISNULL") || isKw(t, "NOTNULL"):
			p.i++
			left = &Unary{Op: t.Upper(), Expr: left}
		case isKw(t, "IN") && p.peekN(1).Kind == Op && p.peekN(1).Text == "(":
			p.i += 2
			in := &InExpr{Expr: left, Not: not}
			if p.startsQuery() {
				in.Query = p.parseQuery()
			} else if !p.isOp(")") {
				in.List = p.parseExprList()
			}
			p.expectOp(")")
			left = in
		case isKw(t, "IN") && (p.d.Name == "bigquery" || p.d.Name == "generic") && isKw(p.peekN(1), "UNNEST"):
			p.i++
			left = &InExpr{Expr: left, Not: not, List: []Expr{p.parsePrimary()}}
		case isKw(t, "LIKE") || isKw(t, "ILIKE") || isKw(t, "RLIKE") || isKw(t, "REGEXP") || isKw(t, "SIMILAR"):
			p.i++
			op := t.Upper()
			if op == "SIMILAR" {
				p.expectKw("TO")
			}
			if (p.isKw("ANY") || p.isKw("ALL") || p.isKw("SOME")) && p.peekN(1).Kind == Op && p.peekN(1).Text == "(" {
				p.i++
			}
			if not {
				op = "NOT " + op
			}
			left = &Binary{Op: op, Left: left, Right: p.parseBinary(0)}
			if p.acceptKw("ESCAPE") {
				p.parseBinary(0)
			}
		case isKw(t, "BETWEEN"):
			p.i++
			p.acceptKw("SYMMETRIC")
			b := &Between{Expr: left, Not: not}
			b.Lo = p.parseBinary(0)
			p.expectKw("AND")
			b.Hi = p.parseBinary(0)
			left = b
		default:
			if not {
				p.i--
			}
			return left
		}
	}
}

var binPrec = map[string]int{
	"|": 1, "&": 2, "<<": 3, ">>": 3, "#": 3,
	"||": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "//": 6, "^": 7, "**": 7,
	"->": 8, "->>": 8,
}

func (p *parser) parseBinary(minPrec int) Expr {
	p.enter()
	defer p.leave()
	left := p.parseUnary()
	for {
		t := p.peek()
		if t.Kind != Op {
			if isKw(t, "COLLATE") {
				p.i++
				p.advance()
				continue
			}
			if isKw(t, "AT") && isKw(p.peekN(1), "TIME") && isKw(p.peekN(2), "ZONE") {
				p.i += 3
				left = &Binary{Op: "AT TIME ZONE", Left: left, Right: p.parseUnary()}
				continue
			}
			if isKw(t, "DIV") || isKw(t, "MOD") {
				p.i++
				left = &Binary{Op: t.Upper(), Left: left, Right: p.parseBinary(7)}
				continue
			}
			return left
		}
		prec, ok := binPrec[t.Text]
		if !ok || prec < minPrec {
			return left
		}
		if t.Text == "->" {
			// DuckDB/Spark lambda: x -> expr or (x, acc) -> expr. JSON
			// arrows take a literal key.
			if params := lambdaParams(left); params != nil {
				nt := p.peekN(1)
				if nt.Kind != String && nt.Kind != Number {
					p.i++
					return &Lambda{Params: params, Body: p.parseExpr()}
				}
			}
		}
		p.i++
		right := p.parseBinary(prec + 1)
		b := p.binaries.alloc()
		b.Op, b.Left, b.Right = t.Text, left, right
		left = b
	}
}

func (p *parser) parseUnary() Expr {
	t := p.peek()
	if t.Kind == Op && (t.Text == "-" || t.Text == "+" || t.Text == "~" || t.Text == "!") {
		p.i++
		p.enter()
		defer p.leave()
		return &Unary{Op: t.Text, Expr: p.parseUnary()}
	}
	return p.parsePostfix(p.parsePrimary())
}

func (p *parser) parsePostfix(e Expr) Expr {
	for {
		t := p.peek()
		if t.Kind != Op {
			return e
		}
		switch t.Text {
		case "::":
			p.i++
			c := p.casts.alloc()
			c.Expr, c.Func = e, "::"
			c.Type = p.parseType()
			e = c
		case "[":
			p.i++
			var idx Expr
			if !p.isOp("]") {
				if p.isOp(":") {
					idx = &Literal{Kind: "number", Value: ""}
				} else {
					idx = p.parseExpr()
				}
				// Slices: x[a:b]
				for p.acceptOp(":") {
					if !p.isOp("]") {
						p.parseExpr()
					}
				}
			}
			p.expectOp("]")
			e = &Access{Expr: e, Index: idx, Op: "["}
		case ".":
			nt := p.peekN(1)
			if isIdentTok(nt) {
				p.i += 2
				e = &Access{Expr: e, Field: p.identText(nt), Op: "."}
				continue
			}
			if nt.Kind == Op && nt.Text == "*" {
				p.i += 2
				continue
			}
			return e
		case ":":
			if !p.d.VariantPath {
				return e
			}
			nt := p.peekN(1)
			if !isIdentTok(nt) && nt.Kind != String {
				return e
			}
			p.i += 2
			e = &Access{Expr: e, Field: nt.Text, Op: ":"}
		default:
			return e
		}
	}
}

// parseType reads a type name permissively; lineage never needs its meaning.
func (p *parser) parseType() string {
	var b strings.Builder
	t := p.peek()
	if !isIdentTok(t) {
		p.fail("expected a type name, found %s", describe(t))
	}
	n := p.parseName()
	b.WriteString(strings.ToUpper(n.String()))
	for {
		u := p.peek()
		if u.Kind == Ident && (u.Upper() == "PRECISION" || u.Upper() == "VARYING" || u.Upper() == "UNSIGNED" ||
			u.Upper() == "ZONE" || u.Upper() == "TIME" || u.Upper() == "LOCAL" ||
			(u.Upper() == "WITH" || u.Upper() == "WITHOUT") && isKw(p.peekN(1), "TIME")) {
			p.i++
			b.WriteString(" " + u.Upper())
			continue
		}
		break
	}
	if p.isOp("(") {
		start := p.i
		p.skipParens()
		b.WriteString(joinTokens(p.toks[start:p.i]))
	}
	if p.isOp("<") {
		start := p.i
		depth := 0
		for {
			u := p.advance()
			if u.Kind == EOF {
				p.failAt(u, "unterminated type parameter list")
			}
			if u.Kind == Op && u.Text == "<" {
				depth++
			} else if u.Kind == Op && u.Text == ">" {
				depth--
			} else if u.Kind == Op && u.Text == ">>" {
				depth -= 2
			} else if u.Kind == Op && u.Text == "->>" {
				depth -= 2
			}
			if depth <= 0 {
				break
			}
		}
		b.WriteString(joinTokens(p.toks[start:p.i]))
	}
	for p.isOp("[") {
		p.i++
		if p.peek().Kind == Number {
			p.i++
		}
		p.expectOp("]")
		b.WriteString("[]")
	}
	if p.acceptKw("ARRAY") {
		b.WriteString("[]")
	}
	return b.String()
}

// skipAngles skips a <...> type parameter list (nested, with >> closing two).
func (p *parser) skipAngles() {
	depth := 0
	for {
		u := p.advance()
		switch {
		case u.Kind == EOF:
			p.failAt(u, "unterminated type parameter list")
		case u.Kind == Op && u.Text == "<":
			depth++
		case u.Kind == Op && u.Text == ">":
			depth--
		case u.Kind == Op && (u.Text == ">>" || u.Text == "->>"):
			depth -= 2
		}
		if depth <= 0 {
			return
		}
	}
}

func joinTokens(ts []Token) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.Text)
	}
	return strings.ToUpper(b.String())
}

var typedLiteralTypes = map[string]bool{"DATE": true, "TIMESTAMP": true, "TIME": true, "DATETIME": true,
	"TIMESTAMPTZ": true, "TIMESTAMP_NTZ": true, "TIMESTAMP_LTZ": true, "TIMESTAMP_TZ": true, "JSON": true,
	"NUMERIC": true, "BIGNUMERIC": true, "DECIMAL": true, "UUID": true, "INET": true, "BYTES": true}

func (p *parser) parsePrimary() Expr {
	p.enter()
	defer p.leave()
	t := p.peek()
	switch t.Kind {
	case Number:
		p.i++
		l := p.lits.alloc()
		l.Kind, l.Value = "number", t.Text
		return l
	case String:
		p.i++
		for p.peek().Kind == String {
			p.i++ // adjacent literals concatenate
		}
		l := p.lits.alloc()
		l.Kind, l.Value = "string", t.Text
		return l
	case Param:
		p.i++
		return &Literal{Kind: "param", Value: t.Text}
	case EOF:
		p.fail("unexpected end of input in an expression")
	case Op:
		switch t.Text {
		case "(":
			p.i++
			if p.startsQuery() {
				q := p.parseQuery()
				p.expectOp(")")
				return &Subquery{Query: q, Kind: "SCALAR"}
			}
			first := p.parseExpr()
			if p.isKw("UNION") || p.isKw("EXCEPT") || p.isKw("INTERSECT") {
				p.fail("parenthesised set operation in an expression is not supported")
			}
			if p.acceptOp(")") {
				return first
			}
			l := &List{Kind: "ROW", Items: []Expr{first}}
			for p.acceptOp(",") {
				if p.isOp(")") {
					break
				}
				l.Items = append(l.Items, p.parseExpr())
			}
			p.expectOp(")")
			return l
		case "[":
			p.i++
			l := &List{Kind: "ARRAY"}
			for !p.isOp("]") {
				l.Items = append(l.Items, p.parseExpr())
				if !p.acceptOp(",") {
					break
				}
			}
			p.expectOp("]")
			return l
		case "{":
			p.i++
			l := &List{Kind: "STRUCT"}
			for !p.isOp("}") {
				k := p.advance()
				if k.Kind != String && !isIdentTok(k) {
					p.failAt(k, "expected a struct key, found %s", describe(k))
				}
				p.expectOp(":")
				l.Names = append(l.Names, k.Text)
				l.Items = append(l.Items, p.parseExpr())
				if !p.acceptOp(",") {
					break
				}
			}
			p.expectOp("}")
			return l
		case "*":
			p.i++
			return &StarExpr{}
		case ":":
			// :name bind parameter
			if isIdentTok(p.peekN(1)) {
				p.i += 2
				return &Literal{Kind: "param", Value: ":" + p.peekN(-1).Text}
			}
		}
		p.fail("unexpected %s in an expression", describe(t))
	}
	// identifiers and keywords
	if t.Kind == Ident {
		switch t.Upper() {
		case "CASE":
			return p.parseCase()
		case "CAST", "TRY_CAST", "SAFE_CAST":
			if p.peekN(1).Kind == Op && p.peekN(1).Text == "(" {
				p.i += 2
				c := &Cast{Func: t.Upper(), Expr: p.parseExpr()}
				if p.acceptKw("AS") {
					c.Type = p.parseType()
				} else if p.acceptOp(",") {
					c.Type = strings.ToUpper(Format(p.parseExpr()))
				}
				if p.acceptKw("FORMAT") {
					p.parseExpr()
				}
				p.expectOp(")")
				return c
			}
		case "EXISTS":
			if p.peekN(1).Kind == Op && p.peekN(1).Text == "(" {
				p.i += 2
				q := p.parseQuery()
				p.expectOp(")")
				return &Subquery{Query: q, Kind: "EXISTS"}
			}
		case "NULL":
			p.i++
			l := p.lits.alloc()
			l.Kind, l.Value = "null", "NULL"
			return l
		case "TRUE", "FALSE":
			p.i++
			return &Literal{Kind: "bool", Value: t.Upper()}
		case "INTERVAL":
			nt := p.peekN(1)
			if nt.Kind == String || nt.Kind == Number || nt.Kind == Op && (nt.Text == "(" || nt.Text == "-") || isIdentTok(nt) && !reserved[nt.Upper()] {
				p.i++
				tl := &TypedLiteral{Type: "INTERVAL", Value: p.parseUnary()}
				if u := p.peek(); u.Kind == Ident && isDatePart(u.Upper()) {
					p.i++
					tl.Unit = u.Upper()
					if p.acceptKw("TO") {
						tl.Unit += " TO " + p.advance().Upper()
					}
				}
				return tl
			}
		case "ARRAY":
			nt := p.peekN(1)
			if nt.Kind == Op && nt.Text == "[" {
				p.i++
				l := p.parsePrimary().(*List)
				return l
			}
			if nt.Kind == Op && nt.Text == "<" {
				p.i++
				p.skipAngles()
				if p.isOp("[") {
					return p.parsePrimary()
				}
				return &List{Kind: "ARRAY"}
			}
			if nt.Kind == Op && nt.Text == "(" && (isKw(p.peekN(2), "SELECT") || isKw(p.peekN(2), "WITH")) {
				p.i += 2
				q := p.parseQuery()
				p.expectOp(")")
				return &Subquery{Query: q, Kind: "ARRAY"}
			}
		case "STRUCT":
			nt := p.peekN(1)
			if nt.Kind == Op && nt.Text == "<" {
				p.i++
				p.skipAngles()
				if p.isOp("(") {
					f := p.parseFuncCall(Name{Parts: []string{"STRUCT"}})
					return &List{Kind: "STRUCT", Items: f.Args}
				}
				return &List{Kind: "STRUCT"}
			}
			if nt.Kind == Op && nt.Text == "(" {
				p.i++
				f := p.parseFuncCall(Name{Parts: []string{"STRUCT"}, Pos: t.Pos})
				return &List{Kind: "STRUCT", Items: f.Args}
			}
		case "LAMBDA":
			if isIdentTok(p.peekN(1)) {
				p.i++
				var params []string
				for {
					s, _ := p.parseIdent()
					params = append(params, s)
					if !p.acceptOp(",") {
						break
					}
				}
				p.expectOp(":")
				return &Lambda{Params: params, Body: p.parseExpr()}
			}
		default:
			if typedLiteralTypes[t.Upper()] && p.peekN(1).Kind == String {
				p.i += 2
				return &TypedLiteral{Type: t.Upper(), Value: &Literal{Kind: "string", Value: p.peekN(-1).Text}}
			}
		}
		if reserved[t.Upper()] && !(p.peekN(1).Kind == Op && p.peekN(1).Text == "(") && t.Upper() != "REPLACE" && t.Upper() != "FILTER" && t.Upper() != "LEFT" && t.Upper() != "RIGHT" {
			p.fail("unexpected keyword %s in an expression", t.Upper())
		}
	}
	if !isIdentTok(t) {
		p.fail("unexpected %s in an expression", describe(t))
	}
	n := p.parseName()
	if p.isOp(".") && p.peekN(1).Kind == Op && p.peekN(1).Text == "*" {
		p.i += 2
		return &StarExpr{Qualifier: n.Parts}
	}
	if p.isOp("(") {
		return p.parseFuncCall(n)
	}
	c := p.cols.alloc()
	c.Name = n
	return c
}

func (p *parser) parseCase() Expr {
	p.expectKw("CASE")
	c := p.cases.alloc()
	if !p.isKw("WHEN") {
		c.Operand = p.parseExpr()
	}
	for p.acceptKw("WHEN") {
		w := p.parseExpr()
		p.expectKw("THEN")
		c.Whens = append(c.Whens, [2]Expr{w, p.parseExpr()})
	}
	if p.acceptKw("ELSE") {
		c.Else = p.parseExpr()
	}
	p.expectKw("END")
	return c
}

var argSeps = map[string]bool{"FROM": true, "FOR": true, "IN": true, "AS": true, "USING": true, "SEPARATOR": true, "PLACING": true, "AND": false}

func (p *parser) parseFuncCall(n Name) *Func {
	f := p.funcs.alloc()
	f.Name = n
	p.expectOp("(")
	mark := len(p.argStack)
	if p.acceptKw("DISTINCT") {
		f.Distinct = true
	} else {
		p.acceptKw("ALL")
	}
	if p.isOp("*") && (p.peekN(1).Kind == Op && p.peekN(1).Text == ")") {
		p.i++
		f.Star = true
	}
	for !p.isOp(")") {
		t := p.peek()
		switch {
		case t.Kind == Op && t.Text == ",":
			p.i++
			continue
		case isKw(t, "ORDER") && isKw(p.peekN(1), "BY"):
			p.i += 2
			f.OrderBy = p.parseOrderItems()
			continue
		case (isKw(t, "IGNORE") || isKw(t, "RESPECT")) && isKw(p.peekN(1), "NULLS"):
			p.i += 2
			continue
		case isKw(t, "LIMIT"):
			p.i++
			p.parseExpr()
			continue
		case isKw(t, "SEPARATOR"):
			p.i++
			p.parseExpr()
			continue
		case (isKw(t, "BOTH") || isKw(t, "LEADING") || isKw(t, "TRAILING")) && !(p.peekN(1).Kind == Op && (p.peekN(1).Text == "," || p.peekN(1).Text == ")")):
			p.i++
			p.argStack = append(p.argStack, &Keyword{Word: t.Upper()})
			if p.acceptKw("FROM") {
				f.Seps = append(f.Seps, "FROM")
			}
			continue
		case p.startsQuery() && !p.isKw("TABLE") && !p.isKw("VALUES") && !p.isKw("FROM"):
			q := p.parseQuery()
			p.argStack = append(p.argStack, &Subquery{Query: q, Kind: "SCALAR"})
			continue
		case isIdentTok(t) && p.peekN(1).Kind == Op && (p.peekN(1).Text == "=>" || p.peekN(1).Text == ":=" && p.d.Name != "snowflake"):
			p.i += 2
			v := p.parseExpr()
			p.argStack = append(p.argStack, &Named{Name: strings.ToUpper(t.Text), Value: v})
			continue
		}
		if len(p.argStack) > mark && t.Kind == Ident && argSeps[t.Upper()] {
			p.i++
			f.Seps = append(f.Seps, t.Upper())
			if t.Upper() == "AS" {
				w := p.parseType()
				p.argStack = append(p.argStack, &Keyword{Word: w})
				continue
			}
			continue
		}
		arg := p.parseExpr()
		p.argStack = append(p.argStack, arg)
		if !p.isOp(",") && !p.isOp(")") && !(p.peek().Kind == Ident && (argSeps[p.peek().Upper()] || p.peek().Upper() == "ORDER" || p.peek().Upper() == "IGNORE" || p.peek().Upper() == "RESPECT" || p.peek().Upper() == "LIMIT" || p.peek().Upper() == "SEPARATOR")) {
			p.fail("expected ',' or ')' in the arguments of %s, found %s", n.String(), describe(p.peek()))
		}
	}
	p.expectOp(")")
	if k := len(p.argStack) - mark; k > 0 {
		f.Args = carve(&p.exprBuf, k, 64)
		copy(f.Args, p.argStack[mark:])
		clear(p.argStack[mark:])
		p.argStack = p.argStack[:mark]
	}
	for {
		switch {
		case p.acceptKw("IGNORE", "NULLS"), p.acceptKw("RESPECT", "NULLS"):
		case p.isKw("WITHIN") && isKw(p.peekN(1), "GROUP"):
			p.i += 2
			p.expectOp("(")
			p.expectKw("ORDER")
			p.expectKw("BY")
			f.WithinGroup = p.parseOrderItems()
			p.expectOp(")")
		case p.isKw("FILTER") && p.peekN(1).Kind == Op && p.peekN(1).Text == "(":
			p.i += 2
			p.acceptKw("WHERE")
			f.Filter = p.parseExpr()
			p.expectOp(")")
		case p.isKw("OVER"):
			p.i++
			if p.acceptOp("(") {
				f.Over = p.parseWindowBody()
			} else {
				name, _ := p.parseIdent()
				f.Over = &WindowSpec{Name: strings.ToUpper(name)}
			}
		default:
			return f
		}
	}
}

// parseWindowBody parses after the '(' of a window spec through ')'.
func (p *parser) parseWindowBody() *WindowSpec {
	w := &WindowSpec{}
	if t := p.peek(); isIdentTok(t) && !isKw(t, "PARTITION") && !isKw(t, "ORDER") && !isKw(t, "ROWS") && !isKw(t, "RANGE") && !isKw(t, "GROUPS") {
		p.i++
		w.Name = strings.ToUpper(t.Text)
	}
	if p.acceptKw("PARTITION", "BY") {
		w.PartitionBy = p.parseExprList()
	}
	if p.acceptKw("ORDER", "BY") {
		w.OrderBy = p.parseOrderItems()
	}
	var frame []string
	depth := 0
	for {
		t := p.peek()
		if t.Kind == EOF {
			p.fail("unterminated window specification")
		}
		if t.Kind == Op && t.Text == ")" {
			if depth == 0 {
				p.i++
				break
			}
			depth--
		}
		if t.Kind == Op && t.Text == "(" {
			depth++
		}
		frame = append(frame, strings.ToUpper(t.Text))
		p.i++
	}
	w.Frame = strings.Join(frame, " ")
	return w
}

var dateParts = map[string]bool{
	"YEAR": true, "YEARS": true, "QUARTER": true, "QUARTERS": true, "MONTH": true, "MONTHS": true, "WEEK": true, "WEEKS": true,
	"DAY": true, "DAYS": true, "HOUR": true, "HOURS": true, "MINUTE": true, "MINUTES": true, "SECOND": true, "SECONDS": true,
	"MILLISECOND": true, "MILLISECONDS": true, "MICROSECOND": true, "MICROSECONDS": true, "NANOSECOND": true, "NANOSECONDS": true,
	"DAYOFWEEK": true, "DAYOFYEAR": true, "DOW": true, "DOY": true, "EPOCH": true, "ISOWEEK": true, "ISOYEAR": true,
	"ISODOW": true, "DATE": true, "TIME": true, "DATETIME": true, "DECADE": true, "CENTURY": true, "MILLENNIUM": true,
	"YY": true, "YYYY": true, "MM": true, "MON": true, "DD": true, "D": true, "DW": true, "HH": true, "MI": true, "SS": true,
	"MS": true, "US": true, "NS": true, "Q": true, "W": true, "WK": true, "Y": true, "H": true, "M": true, "S": true,
	"WEEKDAY": true, "YEAROFWEEK": true, "WEEKOFYEAR": true, "DAYOFMONTH": true, "EPOCH_SECOND": true,
	"MONDAY": true, "TUESDAY": true, "WEDNESDAY": true, "THURSDAY": true, "FRIDAY": true, "SATURDAY": true, "SUNDAY": true,
	"TIMEZONE_HOUR": true, "TIMEZONE_MINUTE": true, "MILS": true,
}

// IsDatePart reports whether an unquoted word names a date or time part.
func IsDatePart(upper string) bool { return dateParts[upper] }

func isDatePart(u string) bool { return dateParts[u] }

func (n *Name) setQuoted(i int) {
	if i < 64 {
		n.Quoted |= 1 << uint(i)
	}
}

// lambdaParams returns the parameter names when e can be a lambda's
// parameter list: a bare name or a parenthesised list of bare names.
func lambdaParams(e Expr) []string {
	switch x := e.(type) {
	case *ColumnRef:
		if len(x.Name.Parts) == 1 {
			return x.Name.Parts
		}
	case *List:
		if x.Kind != "ROW" {
			return nil
		}
		out := make([]string, 0, len(x.Items))
		for _, it := range x.Items {
			c, ok := it.(*ColumnRef)
			if !ok || len(c.Name.Parts) != 1 {
				return nil
			}
			out = append(out, c.Name.Parts[0])
		}
		return out
	}
	return nil
}
