package sqlparse

import (
	"fmt"
	"strings"

	"github.com/ripple-data/ripple/internal/slab"
)

// maxDepth bounds recursion so hostile input fails cleanly instead of
// exhausting the stack.
const maxDepth = 400

// Parse parses one query. A trailing ';' and comments are accepted.
func Parse(d Dialect, sql string) (q *Query, err error) {
	var p Parser
	return p.Parse(d, sql)
}

// Parser parses queries reusing its token buffer between calls; the AST
// does not reference the buffer. Node storage is allocated in blocks that
// later calls keep filling (never overwriting nodes already handed out),
// so ASTs stay valid after further calls, until Reset. A Parser is not
// safe for concurrent use.
type Parser struct {
	toks []Token
	mem  nodeMem
	// reset is set by Reset until the next Parse.
	reset bool
}

// Reset lets the next calls reuse the memory of every AST this Parser
// returned so far. Call it only when none of those ASTs is used any more.
func (pp *Parser) Reset() {
	pp.mem.reset()
	pp.reset = true
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
	if !pp.reset {
		// The ASTs returned so far may live on: keep filling only the
		// current blocks, and let the others go with their ASTs.
		pp.mem.forget()
	}
	pp.reset = false
	// Stacks are empty between calls unless a parse failed midway.
	clear(pp.mem.itemStack)
	clear(pp.mem.argStack)
	clear(pp.mem.cteStack)
	clear(pp.mem.whenStack)
	pp.mem.itemStack, pp.mem.argStack, pp.mem.cteStack, pp.mem.whenStack = pp.mem.itemStack[:0], pp.mem.argStack[:0], pp.mem.cteStack[:0], pp.mem.whenStack[:0]
	p := &parser{d: d, toks: toks, nodeMem: &pp.mem}
	defer func() {
		if r := recover(); r != nil {
			q, err = nil, recovered(r, p.tok(0).Pos)
		}
	}()
	for p.acceptOp(";") {
	}
	if p.tok(0).Kind == EOF {
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

// InternalError is a bug of the parser (a recovered panic), not a fault of
// the SQL: callers report it apart from syntax errors, so that a bug is not
// blamed on the user's query.
type InternalError struct {
	Pos   Pos
	Panic any
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("line %d, column %d: internal parser error: %v", e.Pos.Line, e.Pos.Col, e.Panic)
}

// recovered turns a panic of the parser into its error: an *Error raised
// on purpose (a syntax error), anything else an *InternalError at pos.
func recovered(r any, pos Pos) error {
	if e, ok := r.(*Error); ok {
		return e
	}
	return &InternalError{Pos: pos, Panic: r}
}

// skipDMLPrefix skips INSERT ... / CREATE ... AS so that the SELECT of a
// DML statement can be analysed: lineage tools are often handed whole
// statements, and the target does not change the query's lineage.
func (p *parser) skipDMLPrefix() {
	t := p.peek()
	if !(isKwID(t, kwINSERT) || isKwID(t, kwCREATE) || isKwID(t, kwREPLACE)) {
		return
	}
	depth := 0
	for j := p.i; j < len(p.toks); j++ {
		u := p.toks[j]
		switch {
		case u.Kind == EOF:
			return
		case u.Kind == Op && u.Text == "(":
			if depth == 0 && j+1 < len(p.toks) && (isKwID(p.toks[j+1], kwSELECT) || isKwID(p.toks[j+1], kwWITH)) {
				p.i = j
				return
			}
			depth++
		case u.Kind == Op && u.Text == ")":
			depth--
		case depth == 0 && (isKwID(u, kwSELECT) || isKwID(u, kwWITH) || isKwID(u, kwVALUES)):
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
	// eof is what tok returns past the end (a zero Token has Kind EOF).
	eof Token
	*nodeMem
}

// nodeMem holds the arenas and stacks of a Parser; it outlives one parse
// so that a block's unused tail serves the next query.
type nodeMem struct {
	itemStack []*SelectItem
	// Arenas for the most frequent nodes: one allocation per block
	// instead of one per node.
	cols     slab.Slab[ColumnRef]
	lits     slab.Slab[Literal]
	items    slab.Slab[SelectItem]
	binaries slab.Slab[Binary]
	funcs    slab.Slab[Func]
	queries  slab.Slab[Query]
	selects  slab.Slab[Select]
	joins    slab.Slab[Join]
	tables   slab.Slab[TableRef]
	cases    slab.Slab[Case]
	ctes     slab.Slab[CTE]
	casts    slab.Slab[Cast]
	stars    slab.Slab[Star]
	strBuf   slab.Slab[string]
	// argStack collects function arguments (and cteStack a WITH clause's
	// CTEs) before they are copied, exactly sized, into a shared block.
	argStack  []Expr
	exprBuf   slab.Slab[Expr]
	cteStack  []*CTE
	itemBuf   slab.Slab[*SelectItem]
	tablesBuf slab.Slab[TableExpr]
	whenStack [][2]Expr
	whensBuf  slab.Slab[[2]Expr]
	withs     slab.Slab[With]
	ctePtrs   slab.Slab[*CTE]
	windows   slab.Slab[WindowSpec]
}

// forget and reset apply to every slab (see slab).
func (m *nodeMem) forget() {
	m.cols.Forget()
	m.lits.Forget()
	m.items.Forget()
	m.binaries.Forget()
	m.funcs.Forget()
	m.queries.Forget()
	m.selects.Forget()
	m.joins.Forget()
	m.tables.Forget()
	m.cases.Forget()
	m.ctes.Forget()
	m.casts.Forget()
	m.stars.Forget()
	m.strBuf.Forget()
	m.exprBuf.Forget()
	m.itemBuf.Forget()
	m.tablesBuf.Forget()
	m.whensBuf.Forget()
	m.withs.Forget()
	m.ctePtrs.Forget()
	m.windows.Forget()
}

func (m *nodeMem) reset() {
	m.cols.Reset()
	m.lits.Reset()
	m.items.Reset()
	m.binaries.Reset()
	m.funcs.Reset()
	m.queries.Reset()
	m.selects.Reset()
	m.joins.Reset()
	m.tables.Reset()
	m.cases.Reset()
	m.ctes.Reset()
	m.casts.Reset()
	m.stars.Reset()
	m.strBuf.Reset()
	m.exprBuf.Reset()
	m.itemBuf.Reset()
	m.tablesBuf.Reset()
	m.whensBuf.Reset()
	m.withs.Reset()
	m.ctePtrs.Reset()
	m.windows.Reset()
}

// nodeBlock bounds the chunk size of node slabs.
const nodeBlock = 128

// strs returns an empty slice with capacity n carved from a shared block;
// the capped capacity makes an append past n copy instead of overwriting.
func (p *parser) strs(n int) []string { return p.strBuf.Take(n, 256)[:0] }

func describe(t Token) string {
	switch t.Kind {
	case EOF:
		return "end of input"
	case String:
		return fmt.Sprintf("string '%s'", t.Text)
	}
	return fmt.Sprintf("%q", t.Text)
}

func (p *parser) peek() Token { return *p.tok(0) }

// tok is peekN without copying the token: the hot checks read one or two
// fields of the next tokens, and a 32-byte copy per check added up. The
// token must not be modified.
func (p *parser) tok(n int) *Token {
	if p.i+n < len(p.toks) {
		return &p.toks[p.i+n]
	}
	return &p.eof
}

func (p *parser) peekN(n int) Token { return *p.tok(n) }

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

func (p *parser) isOp(op string) bool {
	t := p.tok(0)
	return t.Kind == Op && t.Text == op
}

// isKwID reports whether t is the unquoted keyword with index id.
func isKwID(t Token, id uint16) bool { return t.kw == id }

func (p *parser) isKwID(id uint16) bool { return p.tok(0).kw == id }

// acceptKwID consumes the keywords ids if they come next.
func (p *parser) acceptKwID(ids ...uint16) bool {
	for j, id := range ids {
		if p.tok(j).kw != id {
			return false
		}
	}
	p.i += len(ids)
	return true
}

func (p *parser) expectKwID(id uint16) {
	if !p.acceptKwID(id) {
		p.fail("expected %s, found %s", keywordNames[id], describe(p.peek()))
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

func isIdentTok(t Token) bool { return isIdentKind(t.Kind) }

func isIdentKind(k TokenKind) bool { return k == Ident || k == QuotedIdent }

// parseIdent reads any identifier, keywords included (used after AS and '.').
func (p *parser) parseIdent() (string, bool) {
	t := p.tok(0)
	if !isIdentKind(t.Kind) {
		p.fail("expected an identifier, found %s", describe(*t))
	}
	p.i++
	if t.Kind == QuotedIdent {
		return t.Text, true
	}
	return p.d.FoldIdent(t.Text), false
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

func (p *parser) startsQuery() bool {
	t := p.peek()
	return isKwID(t, kwSELECT) || isKwID(t, kwWITH) || isKwID(t, kwVALUES) || isKwID(t, kwFROM) || isKwID(t, kwTABLE) && isIdentTok(p.peekN(1))
}

func (p *parser) parseQuery() *Query {
	// No defer: it is not open-coded in functions with many returns, and
	// a failed parse unwinds by panic, after which depth does not matter.
	p.enter()
	r := p.parseQueryBody()
	p.depth--
	return r
}

func (p *parser) parseQueryBody() *Query {
	q := p.queries.Alloc(nodeBlock)
	q.Pos = p.tok(0).Pos
	if p.acceptKwID(kwWITH) {
		q.With = p.withs.Alloc(nodeBlock)
		// RECURSIVE, unless it is the CTE's name: with recursive as (...).
		q.With.Recursive = p.isKwID(kwRECURSIVE) && !isKwID(p.peekN(1), kwAS) && !(p.tok(1).Kind == Op && p.tok(1).Text == "(") && p.acceptKwID(kwRECURSIVE)
		mark := len(p.cteStack)
		for {
			c := p.ctes.Alloc(nodeBlock)
			c.Pos = p.tok(0).Pos
			c.Name, _ = p.parseIdent()
			if p.isOp("(") {
				c.Columns = p.parseIdentList()
			}
			p.expectKwID(kwAS)
			p.acceptKwID(kwNOT)
			p.acceptKwID(kwMATERIALIZED)
			p.expectOp("(")
			if p.isOp(")") {
				p.fail("empty body of CTE %s: expected a query", c.Name)
			}
			c.Query = p.parseQuery()
			p.expectOp(")")
			p.cteStack = append(p.cteStack, c)
			if !p.acceptOp(",") {
				break
			}
			if p.startsQuery() && !p.isKwID(kwWITH) {
				break // trailing comma after the last CTE
			}
		}
		q.With.CTEs = p.ctePtrs.Take(len(p.cteStack)-mark, 256)
		copy(q.With.CTEs, p.cteStack[mark:])
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
		case p.acceptKwID(kwORDER, kwBY), p.acceptKwID(kwSORT, kwBY), p.acceptKwID(kwCLUSTER, kwBY), p.acceptKwID(kwDISTRIBUTE, kwBY):
			q.OrderBy = append(q.OrderBy, p.parseOrderItems()...)
		case p.acceptKwID(kwLIMIT):
			if p.acceptKwID(kwALL) {
				continue
			}
			q.Limit = p.parseExpr()
			if p.acceptOp(",") {
				q.Offset = q.Limit
				q.Limit = p.parseExpr()
			}
		case p.acceptKwID(kwOFFSET):
			q.Offset = p.parseExpr()
			_ = p.acceptKwID(kwROWS) || p.acceptKwID(kwROW)
		case p.acceptKwID(kwFETCH):
			_ = p.acceptKwID(kwFIRST) || p.acceptKwID(kwNEXT)
			if !p.isKwID(kwROWS) && !p.isKwID(kwROW) {
				q.Limit = p.parseExpr()
			}
			_ = p.acceptKwID(kwROWS) || p.acceptKwID(kwROW)
			_ = p.acceptKwID(kwONLY) || p.acceptKwID(kwWITH, kwTIES)
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
		if p.acceptKwID(kwALL) {
			op.All = true
		} else {
			p.acceptKwID(kwDISTINCT)
		}
		if p.acceptKwID(kwBY, kwNAME) {
			op.ByName = true
		}
		p.acceptKwID(kwCORRESPONDING)
		op.Left = left
		op.Right = p.parseSetOps(prec + 1)
		left = op
	}
}

func (p *parser) parseSetPrimary() QueryBody {
	// No defer: it is not open-coded in functions with many returns, and
	// a failed parse unwinds by panic, after which depth does not matter.
	p.enter()
	r := p.parseSetPrimaryBody()
	p.depth--
	return r
}

func (p *parser) parseSetPrimaryBody() QueryBody {
	switch {
	case p.isOp("("):
		p.i++
		q := p.parseQuery()
		p.expectOp(")")
		return q
	case p.isKwID(kwSELECT), p.isKwID(kwFROM):
		return p.parseSelect()
	case p.isKwID(kwVALUES):
		return p.parseValues()
	case p.isKwID(kwWITH):
		return p.parseQuery()
	case p.isKwID(kwTABLE):
		p.i++
		tr := p.parseTableName()
		return &Select{Items: []*SelectItem{{Star: &Star{}}}, From: []TableExpr{tr}, Pos: tr.Pos}
	}
	p.fail("expected SELECT, found %s", describe(p.peek()))
	return nil
}

func (p *parser) parseValues() *Values {
	p.expectKwID(kwVALUES)
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
	t := p.tok(0)
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
		return isKwID(p.peekN(1), kwBY)
	}
	return false
}

func (p *parser) parseSelect() *Select {
	s := p.selects.Alloc(nodeBlock)
	s.Pos = p.tok(0).Pos
	sawSelect := false
	if p.isKwID(kwFROM) {
		p.i++
		s.From = p.parseFromList()
	}
	if p.acceptKwID(kwSELECT) {
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
		case s.From == nil && p.acceptKwID(kwFROM):
			s.From = p.parseFromList()
		case !sawSelect && p.acceptKwID(kwSELECT):
			sawSelect = true
			s.ImplicitStar = false
			s.Items = nil
			p.parseSelectList(s)
		case p.acceptKwID(kwINTO):
			p.acceptKwID(kwTEMP)
			p.acceptKwID(kwTEMPORARY)
			p.parseName()
		case s.Where == nil && p.acceptKwID(kwWHERE):
			s.Where = p.parseExpr()
		case s.GroupBy == nil && !s.GroupByAll && p.acceptKwID(kwGROUP, kwBY):
			p.parseGroupBy(s)
		case s.Having == nil && p.acceptKwID(kwHAVING):
			s.Having = p.parseExpr()
		case s.Qualify == nil && p.acceptKwID(kwQUALIFY):
			s.Qualify = p.parseExpr()
		case p.acceptKwID(kwWINDOW):
			if s.Windows == nil {
				s.Windows = map[string]*WindowSpec{}
			}
			for {
				name, _ := p.parseIdent()
				p.expectKwID(kwAS)
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
	if p.acceptKwID(kwALL) {
		s.GroupByAll = true
		return
	}
	mark := len(p.argStack)
	for {
		if p.isClauseStart() && len(p.argStack) > mark {
			s.GroupBy = p.popExprs(mark)
			return // trailing comma
		}
		p.argStack = append(p.argStack, p.parseGroupingElement())
		if !p.acceptOp(",") {
			break
		}
	}
	s.GroupBy = p.popExprs(mark)
	if p.acceptKwID(kwWITH, kwROLLUP) || p.acceptKwID(kwWITH, kwCUBE) {
		return
	}
}

// parseGroupingElement reads one GROUP BY element: an expression,
// ROLLUP(...)/CUBE(...) (function calls to the parser), the empty grouping
// set (), or GROUPING SETS (...) of those, which is a List of kind
// "GROUPING SETS" whose empty sets are empty ROW lists.
func (p *parser) parseGroupingElement() Expr {
	if p.isOp("(") && p.tok(1).Kind == Op && p.tok(1).Text == ")" {
		p.i += 2
		return &List{Kind: "ROW"}
	}
	if !p.acceptKwID(kwGROUPING, kwSETS) {
		return p.parseExpr()
	}
	p.enter()
	p.expectOp("(")
	l := &List{Kind: "GROUPING SETS"}
	for {
		l.Items = append(l.Items, p.parseGroupingElement())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	p.leave()
	return l
}

func (p *parser) parseSelectList(s *Select) {
	if p.acceptKwID(kwDISTINCT) {
		s.Distinct = true
		if p.acceptKwID(kwON) {
			p.expectOp("(")
			s.DistinctOn = p.parseExprList()
			p.expectOp(")")
		}
	} else if p.isKwID(kwALL) && !p.nameFollows() {
		p.i++
	}
	if p.isKwID(kwAS) && p.tok(1).Kind == Ident {
		if as := selectAsKinds[strings.ToUpper(p.tok(1).Text)]; as != "" {
			s.As = as
			p.i += 2
		}
	}
	if p.isKwID(kwTOP) && p.tok(1).Kind == Number {
		p.i += 2
	}
	// Collect items on a shared stack and copy once: select lists are long
	// and growing each one was a top allocation site.
	mark := len(p.itemStack)
	defer func() {
		s.Items = p.itemBuf.Take(len(p.itemStack)-mark, 256)
		copy(s.Items, p.itemStack[mark:])
		clear(p.itemStack[mark:])
		p.itemStack = p.itemStack[:mark]
	}()
	if p.isOp(",") {
		p.fail("leading ',' in the select list: expected a column or expression")
	}
	for {
		if p.isClauseStart() && len(p.itemStack) > mark && !p.columnNamedLikeClause() {
			return // trailing comma
		}
		p.itemStack = append(p.itemStack, p.parseSelectItem())
		if !p.acceptOp(",") {
			return
		}
	}
}

func (p *parser) parseSelectItem() *SelectItem {
	t := p.tok(0)
	it := p.items.Alloc(nodeBlock)
	it.Pos = t.Pos
	// *, t.*, db.t.*
	if t.Kind == Op && t.Text == "*" {
		p.i++
		it.Star = p.stars.Alloc(nodeBlock)
		p.parseStarModifiers(it.Star)
		return it
	}
	if isIdentTok(*t) {
		j := 0
		for isIdentTok(p.peekN(j)) && p.tok(j+1).Kind == Op && p.tok(j+1).Text == "." {
			j += 2
			if nt := p.peekN(j); nt.Kind == Op && nt.Text == "*" {
				st := p.stars.Alloc(nodeBlock)
				st.Qualifier = p.strs(j / 2)
				for k := 0; k < j; k += 2 {
					st.Qualifier = append(st.Qualifier, p.identText(p.peekN(k)))
				}
				p.i += j + 1
				it.Star = st
				p.parseStarModifiers(st)
				return it
			}
		}
	}
	it.Expr = p.parseExpr()
	p.parseAlias(&it.Alias, &it.AliasQuoted)
	return it
}

// parseAlias reads [AS] alias, accepting a string alias ('name') too.
func (p *parser) parseAlias(alias *string, quoted *bool) bool {
	t := p.tok(0)
	if isKwID(*t, kwAS) {
		p.i++
		t = p.tok(0)
		if t.Kind == String {
			p.i++
			*alias = t.Text
			*quoted = true
			return true
		}
		*alias, *quoted = p.parseIdent()
		return true
	}
	if t.Kind == QuotedIdent || t.Kind == Ident && !p.aliasStop(t) {
		p.i++
		*alias, *quoted = p.identText(*t), t.Kind == QuotedIdent
		return true
	}
	if t.Kind == String && p.d.Name != "snowflake" {
		// 'alias' without AS appears in generic and Spark SQL.
		nt := p.peekN(1)
		if nt.Kind == EOF || nt.Kind == Op && (nt.Text == "," || nt.Text == ")" || nt.Text == ";") || nt.Kind == Ident && reservedKw[nt.kw] {
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
		case p.isKwID(kwILIKE) && p.tok(1).Kind == String:
			st.ILike = p.tok(1).Text
			st.HasILike = true
			p.i += 2
		case p.isKwID(kwLIKE) && p.tok(1).Kind == String:
			st.ILike = p.tok(1).Text
			st.HasILike = true
			p.i += 2
		case p.isKwID(kwEXCLUDE):
			p.i++
			st.Exclude = appendNames(st.Exclude, p.parseStarNameList())
		case p.isKwID(kwEXCEPT) && p.tok(1).Kind == Op && p.tok(1).Text == "(" && !isKwID(p.peekN(2), kwSELECT) && !isKwID(p.peekN(2), kwWITH):
			p.i++
			st.Exclude = appendNames(st.Exclude, p.parseStarNameList())
		case p.isKwID(kwREPLACE) && p.tok(1).Kind == Op && p.tok(1).Text == "(":
			p.i += 2
			for {
				it := &SelectItem{Pos: p.tok(0).Pos, Expr: p.parseExpr()}
				p.acceptKwID(kwAS)
				it.Alias, it.AliasQuoted = p.parseIdent()
				st.Replace = append(st.Replace, it)
				if !p.acceptOp(",") || p.isOp(")") {
					break
				}
			}
			p.expectOp(")")
		case p.isKwID(kwRENAME):
			p.i++
			paren := p.acceptOp("(")
			for {
				from := p.parseDottedLast()
				p.acceptKwID(kwAS)
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

// appendNames appends names to list, taking names itself when list is
// empty (append would copy it).
func appendNames(list, names []string) []string {
	if list == nil {
		return names
	}
	return append(list, names...)
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

func (p *parser) parseFromList() []TableExpr {
	first := p.parseJoinTree()
	if !p.isOp(",") {
		out := p.tablesBuf.Take(1, 64)
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
		if p.isKwID(kwLATERAL) && isKwID(p.peekN(1), kwVIEW) {
			left = &Join{Type: "CROSS", Left: left, Right: p.parseLateralView()}
			continue
		}
		var j Join
		save := p.i
		if p.acceptKwID(kwNATURAL) {
			j.Natural = true
		}
		switch {
		case p.acceptKwID(kwJOIN):
			j.Type = "INNER"
		case p.acceptKwID(kwINNER, kwJOIN):
			j.Type = "INNER"
		case p.acceptKwID(kwCROSS, kwJOIN):
			j.Type = "CROSS"
		case p.acceptKwID(kwCROSS, kwAPPLY):
			j.Type = "CROSS"
		case p.acceptKwID(kwOUTER, kwAPPLY):
			j.Type = "LEFT"
		case p.acceptKwID(kwPOSITIONAL, kwJOIN):
			j.Type = "POSITIONAL"
		case p.acceptKwID(kwSEMI, kwJOIN), p.acceptKwID(kwLEFT, kwSEMI, kwJOIN):
			j.Type = "SEMI"
		case p.acceptKwID(kwANTI, kwJOIN), p.acceptKwID(kwLEFT, kwANTI, kwJOIN):
			j.Type = "ANTI"
		case p.isKwID(kwASOF):
			p.i++
			j.Type = "ASOF"
			p.acceptKwID(kwLEFT)
			p.acceptKwID(kwOUTER)
			p.expectKwID(kwJOIN)
		case p.isKwID(kwLEFT) || p.isKwID(kwRIGHT) || p.isKwID(kwFULL):
			j.Type = p.advance().Upper()
			p.acceptKwID(kwOUTER)
			if !p.acceptKwID(kwJOIN) {
				p.i = save
				return left
			}
		default:
			p.i = save
			return left
		}
		j.Left = left
		j.Right = p.parseTablePrimary()
		if p.acceptKwID(kwON) {
			if p.emptyCondition() {
				p.fail("empty ON condition of the join: expected a condition, found %s", describe(p.peek()))
			}
			j.On = p.parseExpr()
		} else if p.acceptKwID(kwUSING) {
			j.Using = p.parseIdentList()
		}
		jp := p.joins.Alloc(nodeBlock)
		*jp = j
		left = jp
	}
}

// emptyCondition reports whether no expression starts at the next token:
// the end of the input or of a parenthesis, a ',' or a clause keyword.
func (p *parser) emptyCondition() bool {
	t := p.tok(0)
	switch t.Kind {
	case EOF:
		return true
	case Op:
		return t.Text == "," || t.Text == ")" || t.Text == ";"
	case Ident:
		return reservedKw[t.kw] && t.kw != kwNOT && t.kw != kwCASE && !(p.tok(1).Kind == Op && p.tok(1).Text == "(")
	}
	return false
}

// parseLateralView reads Hive/Spark LATERAL VIEW [OUTER] f(args) t AS c1, c2.
func (p *parser) parseLateralView() TableExpr {
	p.expectKwID(kwLATERAL)
	p.expectKwID(kwVIEW)
	p.acceptKwID(kwOUTER)
	n := p.parseName()
	tf := &TableFunc{Func: p.parseFuncCall(n), Lateral: true}
	if t := p.peek(); isIdentTok(t) && !isKwID(t, kwAS) && !p.aliasStop(&t) {
		tf.Alias, _ = p.parseIdent()
	}
	if p.acceptKwID(kwAS) {
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

// nameFollows reports whether the keyword at the cursor is a name rather
// than a quantifier: what follows it ends an expression or qualifies it
// (select all from t, select all.a from t as all, in Trino and Spark).
func (p *parser) nameFollows() bool {
	n := p.tok(1)
	if n.Kind == Op {
		return n.Text == "." || n.Text == "," || n.Text == ")" || n.Text == ";"
	}
	return n.Kind == EOF || n.Kind == Ident && isKwID(*n, kwFROM)
}

// columnNamedLikeClause reports whether the clause word at the cursor is
// a column the dialect lets it name rather than a clause after a trailing
// comma: select id, limit from t (LIMIT, FETCH, QUALIFY, WINDOW, MINUS are
// not reserved everywhere).
func (p *parser) columnNamedLikeClause() bool {
	t := p.tok(0)
	if t.Kind != Ident || p.notAName(t) {
		return false
	}
	n := p.tok(1)
	if n.Kind == Op {
		return n.Text == "." || n.Text == "," || n.Text == ")" || n.Text == ";"
	}
	return n.Kind == EOF || n.Kind == Ident && (isKwID(*n, kwFROM) || isKwID(*n, kwAS))
}

// notAName reports whether the keyword t cannot be a column, table or
// qualifier: a clause word the dialect reserves. (Other reserved words,
// CURRENT_DATE or USER, are values where a name may stand, and a clause
// word the dialect does not reserve, DuckDB's SAMPLE, is a name there.)
func (p *parser) notAName(t *Token) bool {
	return reservedKw[t.kw] && p.d.reservedKw()[t.kw]
}

// aliasStop reports whether the keyword t cannot be an alias without AS:
// a clause word (in any dialect: the grammar is their union) or a word the
// dialect reserves.
func (p *parser) aliasStop(t *Token) bool {
	return reservedKw[t.kw] || operatorKw[t.kw] || p.d.reservedKw()[t.kw]
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
	n := Name{Pos: p.tok(0).Pos}
	// Size Parts exactly: names are the parser's most frequent allocation.
	parts := 1
	for j := 1; p.tok(j).Kind == Op && p.tok(j).Text == "." && isIdentKind(p.tok(j+1).Kind); j += 2 {
		parts++
	}
	n.Parts = p.strs(parts)
	for {
		if hyphens && isIdentTok(p.peek()) {
			first := p.peek()
			text := first.Text
			j := 0
			for adjacent(p.peekN(j), p.peekN(j+1)) && p.tok(j+1).Kind == Op && p.tok(j+1).Text == "-" {
				nt := p.peekN(j + 2)
				if (nt.Kind != Ident && nt.Kind != Number) || nt.Pos.Col != p.tok(j+1).Pos.Col+1 || nt.Pos.Line != first.Pos.Line {
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
		if bt := p.tok(0); bt.Backtick && strings.Contains(bt.Text, ".") {
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
		if p.isOp(".") && isIdentKind(p.tok(1).Kind) {
			p.i++
			continue
		}
		// Spark/Databricks: "db..table" is not a thing; stop here.
		return n
	}
}

func (p *parser) parseTableAlias(alias *string, cols *[]string) {
	var q bool
	t := p.tok(0)
	if isKwID(*t, kwAS) || t.Kind == QuotedIdent || t.Kind == Ident && !p.aliasStop(t) && !p.isTableModifier(t) {
		if !p.parseAlias(alias, &q) {
			return
		}
		if p.isOp("(") && isIdentTok(p.peekN(1)) {
			*cols = p.parseIdentList()
		}
	}
}

// isTableModifier reports whether t starts a table modifier rather than
// an alias: time travel, sampling, hints.
func (p *parser) isTableModifier(t *Token) bool {
	next := p.tok(1)
	switch t.Upper() {
	case "AT", "BEFORE", "CHANGES":
		return next.Kind == Op && next.Text == "("
	case "USE", "FORCE", "IGNORE":
		return next.Kind == Ident && (strings.EqualFold(next.Text, "index") || strings.EqualFold(next.Text, "key"))
	case "TABLESAMPLE", "SAMPLE", "WITH", "MATCH_RECOGNIZE", "OFFSET":
		return true
	}
	return false
}

func (p *parser) parseTablePrimary() TableExpr {
	// No defer: it is not open-coded in functions with many returns, and
	// a failed parse unwinds by panic, after which depth does not matter.
	p.enter()
	r := p.parseTablePrimaryBody()
	p.depth--
	return r
}

func (p *parser) parseTablePrimaryBody() TableExpr {
	// LATERAL, unless it is a table's name (Trino does not reserve it).
	lateral := p.isKwID(kwLATERAL) && (p.tok(1).Kind == Op && p.tok(1).Text == "(" || isIdentTok(p.peekN(1)) && !reservedKw[p.tok(1).kw]) && p.acceptKwID(kwLATERAL)
	var te TableExpr
	t := p.tok(0)
	switch {
	case t.Kind == Op && t.Text == "(":
		te = p.parseParenTable(lateral)
	case isKwID(*t, kwVALUES) && p.tok(1).Kind == Op && p.tok(1).Text == "(":
		vt := &ValuesTable{Values: p.parseValues()}
		p.parseTableAlias(&vt.Alias, &vt.ColAliases)
		te = vt
	case isKwID(*t, kwTABLE) && p.tok(1).Kind == Op && p.tok(1).Text == "(":
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
	case t.Kind == Ident && p.notAName(t):
		p.fail("expected a table, found keyword %s", t.Upper())
	case isIdentTok(*t):
		n := p.parseNameOpt(p.d.Name == "bigquery" || p.d.Name == "generic")
		if p.isOp("(") {
			f := p.parseFuncCall(n)
			tf := &TableFunc{Func: f, Lateral: lateral}
			p.parseTableAlias(&tf.Alias, &tf.ColAliases)
			if p.acceptKwID(kwWITH, kwOFFSET) {
				tf.WithOffset = true
				var q bool
				p.parseAlias(&tf.OffsetAlias, &q)
			}
			te = tf
		} else {
			tr := p.tables.Alloc(nodeBlock)
			tr.Name, tr.Pos = n, n.Pos
			p.skipTableModifiers()
			p.parseTableAlias(&tr.Alias, &tr.ColAliases)
			te = tr
		}
	default:
		p.fail("expected a table, found %s", describe(*t))
	}
	p.skipTableModifiers()
	for {
		switch {
		case p.isKwID(kwPIVOT) && p.tok(1).Kind == Op && p.tok(1).Text == "(":
			te = p.parsePivot(te)
		case p.isKwID(kwUNPIVOT):
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
		case (p.isKwID(kwAT) || p.isKwID(kwBEFORE) || p.isKwID(kwCHANGES)) && p.tok(1).Kind == Op && p.tok(1).Text == "(":
			p.i++
			p.skipParens()
		case p.isKwID(kwTABLESAMPLE) || p.isKwID(kwSAMPLE) || p.isKwID(kwUSING) && isKwID(p.peekN(1), kwSAMPLE):
			if p.acceptKwID(kwUSING) {
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
			if isIdentTok(p.peek()) && p.tok(1).Kind == Op && p.tok(1).Text == "(" {
				p.i++
			}
			if p.isOp("(") {
				p.skipParens()
			}
			if p.acceptKwID(kwREPEATABLE) || p.acceptKwID(kwSEED) {
				p.skipParens()
			}
		case p.isKwID(kwFOR) && (isKwID(p.peekN(1), kwSYSTEMTIME) || isKwID(p.peekN(1), kwTIMESTAMP) || isKwID(p.peekN(1), kwVERSION)):
			p.i += 2
			p.acceptKwID(kwAS)
			p.acceptKwID(kwOF)
			p.parseExpr()
		case p.isKwID(kwWITH) && p.tok(1).Kind == Op && p.tok(1).Text == "(":
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
	var queryErr *Error
	if p.startsQuery() || p.isOp("(") {
		q, err := p.tryParse(func() any { q := p.parseQuery(); p.expectOp(")"); return q })
		if err == nil {
			dt := &DerivedTable{Query: q.(*Query), Lateral: lateral}
			p.parseTableAlias(&dt.Alias, &dt.ColAliases)
			return dt
		}
		if p.isKwID(kwSELECT) || p.isKwID(kwWITH) {
			// A query it is (no table starts with these): its own
			// error is the user's, not "expected a table" at its start.
			panic(err)
		}
		queryErr = err
		p.i = save + 1
	}
	if queryErr != nil {
		// (( ... : a nested query or a parenthesised join tree; when
		// neither reads, report the attempt that got further.
		if inner, err := p.tryParse(func() any { j := p.parseJoinTree(); p.expectOp(")"); return j }); err != nil {
			if posAfter(queryErr.Pos, err.Pos) {
				panic(queryErr)
			}
			panic(err)
		} else {
			return p.finishParenTable(inner.(TableExpr))
		}
	}
	inner := p.parseJoinTree()
	p.expectOp(")")
	return p.finishParenTable(inner)
}

// posAfter reports whether a comes after b in the text.
func posAfter(a, b Pos) bool {
	return a.Line > b.Line || a.Line == b.Line && a.Col > b.Col
}

func (p *parser) finishParenTable(inner TableExpr) TableExpr {
	pt := &ParenTable{Inner: inner}
	var cols []string
	p.parseTableAlias(&pt.Alias, &cols)
	return pt
}

// tryParse runs f and rewinds on a syntax error, for the few places where
// SQL needs unbounded lookahead (a '(' may open a query or a join tree).
func (p *parser) tryParse(f func() any) (v any, fail *Error) {
	save, depth := p.i, p.depth
	nItems, nArgs, nCTEs, nWhens := len(p.itemStack), len(p.argStack), len(p.cteStack), len(p.whenStack)
	defer func() {
		if r := recover(); r != nil {
			e, isErr := r.(*Error)
			if !isErr {
				panic(r)
			}
			p.i, p.depth = save, depth
			// Drop what the failed attempt left on the shared stacks.
			clear(p.itemStack[nItems:])
			clear(p.argStack[nArgs:])
			clear(p.cteStack[nCTEs:])
			clear(p.whenStack[nWhens:])
			p.itemStack, p.argStack, p.cteStack, p.whenStack = p.itemStack[:nItems], p.argStack[:nArgs], p.cteStack[:nCTEs], p.whenStack[:nWhens]
			v, fail = nil, e
		}
	}()
	return f(), nil
}

func (p *parser) parsePivot(src TableExpr) TableExpr {
	p.expectKwID(kwPIVOT)
	p.expectOp("(")
	pv := &Pivot{Source: src}
	for {
		it := &SelectItem{Pos: p.tok(0).Pos, Expr: p.parseExpr()}
		p.parseAlias(&it.Alias, &it.AliasQuoted)
		pv.Aggs = append(pv.Aggs, it)
		if !p.acceptOp(",") {
			break
		}
	}
	// FOR a IN (...) [[FOR] b IN (...)]: DuckDB lists further pivot
	// columns without repeating FOR.
	for p.acceptKwID(kwFOR) || len(pv.For) > 0 && (isIdentTok(p.peek()) || p.isOp("(")) && !p.isKwID(kwGROUP) && !p.isKwID(kwDEFAULT) {
		pv.For = append(pv.For, p.parsePivotForTarget())
		p.expectKwID(kwIN)
		p.expectOp("(")
		var in []*SelectItem
		if p.acceptKwID(kwANY) {
			pv.Dynamic = true
			if p.acceptKwID(kwORDER, kwBY) {
				p.parseOrderItems()
			}
		} else if p.startsQuery() {
			pv.Dynamic = true
			p.parseQuery()
		} else {
			for !p.isOp(")") {
				it := &SelectItem{Pos: p.tok(0).Pos, Expr: p.parseExpr()}
				p.parseAlias(&it.Alias, &it.AliasQuoted)
				in = append(in, it)
				if !p.acceptOp(",") {
					break
				}
			}
		}
		pv.In = append(pv.In, in)
		p.expectOp(")")
	}
	if p.acceptKwID(kwGROUP, kwBY) {
		pv.GroupBy = p.parseExprList()
	}
	if p.acceptKwID(kwDEFAULT, kwON, kwNULL) {
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
	p.expectKwID(kwUNPIVOT)
	if p.acceptKwID(kwINCLUDE, kwNULLS) || p.acceptKwID(kwEXCLUDE, kwNULLS) {
	}
	p.expectOp("(")
	up := &Unpivot{Source: src}
	if p.isOp("(") {
		up.ValueCols = p.parseIdentList()
	} else {
		s, _ := p.parseIdent()
		up.ValueCols = []string{s}
	}
	p.expectKwID(kwFOR)
	up.NameCol, _ = p.parseIdent()
	p.expectKwID(kwIN)
	p.expectOp("(")
	for !p.isOp(")") {
		it := &SelectItem{Pos: p.tok(0).Pos}
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
		if p.acceptKwID(kwAS) {
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

func (p *parser) parseExprList() []Expr {
	mark := len(p.argStack)
	for {
		p.argStack = append(p.argStack, p.parseExpr())
		if !p.acceptOp(",") || p.isOp(")") {
			return p.popExprs(mark)
		}
	}
}

// popExprs moves the expressions pushed on argStack since mark into an
// exactly sized slice.
func (p *parser) popExprs(mark int) []Expr {
	k := len(p.argStack) - mark
	if k == 0 {
		return nil
	}
	out := p.exprBuf.Take(k, 256)
	copy(out, p.argStack[mark:])
	clear(p.argStack[mark:])
	p.argStack = p.argStack[:mark]
	return out
}

func (p *parser) parseOrderItems() []OrderItem {
	var out []OrderItem
	for {
		if p.isClauseStart() && len(out) > 0 {
			return out
		}
		it := OrderItem{Expr: p.parseExpr()}
		if p.acceptKwID(kwDESC) {
			it.Desc = true
		} else {
			p.acceptKwID(kwASC)
		}
		if p.acceptKwID(kwNULLS) {
			_ = p.acceptKwID(kwFIRST) || p.acceptKwID(kwLAST)
		}
		out = append(out, it)
		if !p.acceptOp(",") {
			return out
		}
	}
}

func (p *parser) parseExpr() Expr {
	p.enter()
	var e Expr
	if c := p.bareColumn(); c != nil {
		e = c
	} else {
		e = p.parseOr()
	}
	p.depth--
	return e
}

// bareColumn parses a column reference (a possibly qualified name) that is
// a whole expression, the most frequent kind, without descending through
// every precedence level. It returns nil, consuming nothing, unless the
// lookahead shows that parseOr would read exactly that name.
func (p *parser) bareColumn() *ColumnRef {
	// parseOr would enter two more levels (parseBinary, parsePrimary):
	// leave a too-deep query to fail there.
	if p.depth+2 > maxDepth {
		return nil
	}
	t := p.tok(0)
	if !(t.Kind == Ident && t.kw == 0 || t.Kind == QuotedIdent) || t.Backtick {
		return nil
	}
	j := 1
	for {
		u := p.tok(j)
		if u.Kind == Op && u.Text == "." {
			if v := p.tok(j + 1); !isIdentKind(v.Kind) || v.Backtick {
				return nil
			}
			j += 2
			continue
		}
		if !endsExpr(u) {
			return nil
		}
		break
	}
	c := p.cols.Alloc(nodeBlock)
	c.Name = p.parseName()
	return c
}

// endsExpr reports whether no operator, postfix or predicate of an
// expression starts at t, so that an expression before it ends there.
func endsExpr(t *Token) bool {
	switch t.Kind {
	case EOF, QuotedIdent:
		return true
	case Op:
		return t.Text == "," || t.Text == ")" || t.Text == ";"
	case Ident:
		switch t.kw {
		case kwCOLLATE, kwAT, kwDIV, kwMOD, kwNOT, kwIS, kwISNULL, kwNOTNULL, kwIN, kwLIKE, kwILIKE,
			kwRLIKE, kwREGEXP, kwSIMILAR, kwBETWEEN, kwAND, kwOR:
			return false
		}
		return true
	}
	return false
}

func (p *parser) parseOr() Expr {
	left := p.parseAnd()
	for p.acceptKwID(kwOR) {
		left = &Binary{Op: "OR", Left: left, Right: p.parseAnd()}
	}
	return left
}

func (p *parser) parseAnd() Expr {
	left := p.parseNot()
	for p.acceptKwID(kwAND) {
		left = &Binary{Op: "AND", Left: left, Right: p.parseNot()}
	}
	return left
}

func (p *parser) parseNot() Expr {
	if p.isKwID(kwNOT) {
		p.i++
		p.enter()
		defer p.leave()
		return &Unary{Op: "NOT", Expr: p.parseNot()}
	}
	return p.parseComparison()
}

func (p *parser) parseComparison() Expr {
	left := p.parseBinary(0)
	for {
		t := p.tok(0)
		if t.Kind == Op && isCmpOp(t.Text) {
			p.i++
			// x = ANY(...) / ALL(...)
			if (p.isKwID(kwANY) || p.isKwID(kwALL) || p.isKwID(kwSOME)) && p.tok(1).Kind == Op && p.tok(1).Text == "(" {
				p.i++
			}
			b := p.binaries.Alloc(nodeBlock)
			b.Op, b.Left = t.Text, left
			b.Right = p.parseBinary(0)
			left = b
			continue
		}
		not := false
		if isKwID(*t, kwNOT) {
			nt := p.peekN(1)
			if isKwID(nt, kwIN) || isKwID(nt, kwLIKE) || isKwID(nt, kwILIKE) || isKwID(nt, kwBETWEEN) || isKwID(nt, kwRLIKE) || isKwID(nt, kwREGEXP) || isKwID(nt, kwSIMILAR) {
				not = true
				p.i++
				t = p.tok(0)
			} else {
				return left
			}
		}
		switch {
		case isKwID(*t, kwIS):
			p.i++
			neg := p.acceptKwID(kwNOT)
			op := "IS"
			if neg {
				op = "IS NOT"
			}
			var right Expr
			switch {
			case p.acceptKwID(kwDISTINCT, kwFROM):
				right = p.parseBinary(0)
				op += " DISTINCT FROM"
			case p.isKwID(kwNULL) || p.isKwID(kwTRUE) || p.isKwID(kwFALSE) || p.isKwID(kwUNKNOWN):
				l := p.lits.Alloc(nodeBlock)
				l.Kind, l.Value = "keyword", p.advance().Upper()
				right = l
			default:
				right = p.parseBinary(0)
			}
			b := p.binaries.Alloc(nodeBlock)
			b.Op, b.Left, b.Right = op, left, right
			left = b
		case isKwID(*t, kwISNULL) || isKwID(*t, kwNOTNULL):
			p.i++
			left = &Unary{Op: t.Upper(), Expr: left}
		case isKwID(*t, kwIN) && p.tok(1).Kind == Op && p.tok(1).Text == "(":
			p.i += 2
			in := &InExpr{Expr: left, Not: not}
			if p.startsQuery() {
				in.Query = p.parseQuery()
			} else if !p.isOp(")") {
				in.List = p.parseExprList()
			}
			p.expectOp(")")
			left = in
		case isKwID(*t, kwIN) && (p.d.Name == "bigquery" || p.d.Name == "generic") && isKwID(p.peekN(1), kwUNNEST):
			p.i++
			left = &InExpr{Expr: left, Not: not, List: []Expr{p.parsePrimary()}}
		case isKwID(*t, kwLIKE) || isKwID(*t, kwILIKE) || isKwID(*t, kwRLIKE) || isKwID(*t, kwREGEXP) || isKwID(*t, kwSIMILAR):
			p.i++
			op := t.Upper()
			if op == "SIMILAR" {
				p.expectKwID(kwTO)
			}
			if (p.isKwID(kwANY) || p.isKwID(kwALL) || p.isKwID(kwSOME)) && p.tok(1).Kind == Op && p.tok(1).Text == "(" {
				p.i++
			}
			if not {
				op = "NOT " + op
			}
			left = &Binary{Op: op, Left: left, Right: p.parseBinary(0)}
			if p.acceptKwID(kwESCAPE) {
				p.parseBinary(0)
			}
		case isKwID(*t, kwBETWEEN):
			p.i++
			p.acceptKwID(kwSYMMETRIC)
			b := &Between{Expr: left, Not: not}
			b.Lo = p.parseBinary(0)
			p.expectKwID(kwAND)
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

// isCmpOp reports a comparison operator (a switch: no hashing on the hot path).
func isCmpOp(op string) bool {
	switch op {
	case "=", "==", "<>", "!=", "<", ">", "<=", ">=", "~", "!~", "~*", "!~*", "@>", "<@", "&&", "<=>":
		return true
	}
	return false
}

// binaryPrec is the precedence of a binary operator.
func binaryPrec(op string) (int, bool) {
	switch op {
	case "|":
		return 1, true
	case "&":
		return 2, true
	case "<<", ">>", "#":
		return 3, true
	case "||":
		return 4, true
	case "+", "-":
		return 5, true
	case "*", "/", "%", "//":
		return 6, true
	case "^", "**":
		return 7, true
	case "->", "->>":
		return 8, true
	}
	return 0, false
}

func (p *parser) parseBinary(minPrec int) Expr {
	// No defer: it is not open-coded in functions with many returns, and
	// a failed parse unwinds by panic, after which depth does not matter.
	p.enter()
	r := p.parseBinaryBody(minPrec)
	p.depth--
	return r
}

func (p *parser) parseBinaryBody(minPrec int) Expr {
	left := p.parseUnary()
	for {
		t := p.tok(0)
		if t.Kind != Op {
			if isKwID(*t, kwCOLLATE) {
				p.i++
				p.advance()
				continue
			}
			if isKwID(*t, kwAT) && isKwID(p.peekN(1), kwTIME) && isKwID(p.peekN(2), kwZONE) {
				p.i += 3
				left = &Binary{Op: "AT TIME ZONE", Left: left, Right: p.parseUnary()}
				continue
			}
			if isKwID(*t, kwDIV) || isKwID(*t, kwMOD) {
				p.i++
				left = &Binary{Op: t.Upper(), Left: left, Right: p.parseBinary(7)}
				continue
			}
			return left
		}
		prec, ok := binaryPrec(t.Text)
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
		b := p.binaries.Alloc(nodeBlock)
		b.Op, b.Left, b.Right = t.Text, left, right
		left = b
	}
}

func (p *parser) parseUnary() Expr {
	t := p.tok(0)
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
		t := p.tok(0)
		if t.Kind != Op {
			return e
		}
		switch t.Text {
		case "::":
			p.i++
			c := p.casts.Alloc(nodeBlock)
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

// typeGoesOn reports whether the next token extends the type name just
// read, in one of the ways parseType handles.
func (p *parser) typeGoesOn(name string) bool {
	switch u := p.peek(); u.Kind {
	case Op:
		return u.Text == "(" || u.Text == "[" || u.Text == "<" && p.angleParams(name)
	case Ident:
		switch u.Upper() {
		case "PRECISION", "VARYING", "UNSIGNED", "ZONE", "TIME", "LOCAL", "ARRAY":
			return true
		case "WITH", "WITHOUT":
			return isKwID(p.peekN(1), kwTIME)
		}
	}
	return false
}

// angleParams reports whether '<' after the type name opens a type
// parameter list (ARRAY<INT>, STRUCT<a INT>, MAP<K, V>, RANGE<DATE>). After
// any other type it is the less-than operator: d::date < '2022-07-20'.
func (p *parser) angleParams(name string) bool {
	if !p.d.AngleTypeParams {
		return false
	}
	switch name {
	case "ARRAY", "STRUCT", "MAP", "RANGE":
		return true
	}
	return false
}

// parseType reads a type name permissively; lineage never needs its meaning.
func (p *parser) parseType() string {
	var b strings.Builder
	t := p.peek()
	if !isIdentTok(t) {
		p.fail("expected a type name, found %s", describe(t))
	}
	n := p.parseName()
	name := upperTypeName(n.String())
	if !p.typeGoesOn(name) {
		// A bare type name, the usual case: nothing to append.
		return name
	}
	b.WriteString(name)
	for {
		u := p.peek()
		if u.Kind == Ident && (u.Upper() == "PRECISION" || u.Upper() == "VARYING" || u.Upper() == "UNSIGNED" ||
			u.Upper() == "ZONE" || u.Upper() == "TIME" || u.Upper() == "LOCAL" ||
			(u.Upper() == "WITH" || u.Upper() == "WITHOUT") && isKwID(p.peekN(1), kwTIME)) {
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
	if p.isOp("<") && p.angleParams(name) {
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
		if p.tok(0).Kind == Number {
			p.i++
		}
		p.expectOp("]")
		b.WriteString("[]")
	}
	if p.acceptKwID(kwARRAY) {
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

func (p *parser) parsePrimary() Expr {
	// No defer: it is not open-coded in functions with many returns, and
	// a failed parse unwinds by panic, after which depth does not matter.
	p.enter()
	r := p.parsePrimaryBody()
	p.depth--
	return r
}

func (p *parser) parsePrimaryBody() Expr {
	t := p.tok(0)
	switch t.Kind {
	case Number:
		p.i++
		l := p.lits.Alloc(nodeBlock)
		l.Kind, l.Value = "number", t.Text
		return l
	case String:
		p.i++
		for p.tok(0).Kind == String {
			p.i++ // adjacent literals concatenate
		}
		l := p.lits.Alloc(nodeBlock)
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
			if p.isKwID(kwUNION) || p.isKwID(kwEXCEPT) || p.isKwID(kwINTERSECT) {
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
			// DuckDB *COLUMNS(...) unpacks the selected columns as
			// arguments of one call.
			if isKwID(p.peek(), kwCOLUMNS) && p.tok(1).Kind == Op && p.tok(1).Text == "(" {
				n := p.parseName()
				return &Unary{Op: "*", Expr: p.parseFuncCall(n)}
			}
			return &StarExpr{}
		case ":":
			// :name bind parameter
			if isIdentTok(p.peekN(1)) {
				p.i += 2
				return &Literal{Kind: "param", Value: ":" + p.tok(-1).Text}
			}
		}
		p.fail("unexpected %s in an expression", describe(*t))
	}
	// identifiers and keywords
	// Only keywords are special here (Upper is "" for other words).
	if t.Kind == Ident && t.kw != 0 {
		switch t.Upper() {
		case "CASE":
			return p.parseCase()
		case "CAST", "TRY_CAST", "SAFE_CAST":
			if p.tok(1).Kind == Op && p.tok(1).Text == "(" {
				p.i += 2
				c := &Cast{Func: t.Upper(), Expr: p.parseExpr()}
				if p.acceptKwID(kwAS) {
					c.Type = p.parseType()
				} else if p.acceptOp(",") {
					c.Type = strings.ToUpper(Format(p.parseExpr()))
				}
				if p.acceptKwID(kwFORMAT) {
					p.parseExpr()
				}
				p.expectOp(")")
				return c
			}
		case "EXISTS":
			if p.tok(1).Kind == Op && p.tok(1).Text == "(" {
				p.i += 2
				q := p.parseQuery()
				p.expectOp(")")
				return &Subquery{Query: q, Kind: "EXISTS"}
			}
		case "NULL":
			p.i++
			l := p.lits.Alloc(nodeBlock)
			l.Kind, l.Value = "null", "NULL"
			return l
		case "TRUE", "FALSE":
			p.i++
			return &Literal{Kind: "bool", Value: t.Upper()}
		case "INTERVAL":
			nt := p.peekN(1)
			if nt.Kind == String || nt.Kind == Number || nt.Kind == Op && (nt.Text == "(" || nt.Text == "-") || isIdentTok(nt) && !reservedKw[nt.kw] {
				p.i++
				tl := &TypedLiteral{Type: "INTERVAL", Value: p.parseUnary()}
				if u := p.peek(); u.Kind == Ident && isDatePart(u.Upper()) {
					p.i++
					tl.Unit = u.Upper()
					if p.acceptKwID(kwTO) {
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
			if nt.Kind == Op && nt.Text == "(" && (isKwID(p.peekN(2), kwSELECT) || isKwID(p.peekN(2), kwWITH)) {
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
				if f.Star {
					// Spark/Databricks struct(*): every column.
					return &List{Kind: "STRUCT", Items: []Expr{&StarExpr{}}}
				}
				return &List{Kind: "STRUCT", Items: f.Args}
			}
		case "LAMBDA":
			// lambda x: ..., lambda x, y: ... (and not a column named lambda)
			if isIdentTok(p.peekN(1)) && p.tok(2).Kind == Op && (p.tok(2).Text == ":" || p.tok(2).Text == ",") {
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
			if p.tok(1).Kind == String && typedLiteralTypes[t.Upper()] {
				p.i += 2
				return &TypedLiteral{Type: t.Upper(), Value: &Literal{Kind: "string", Value: p.tok(-1).Text}}
			}
		}
		if p.notAName(t) && !(p.tok(1).Kind == Op && p.tok(1).Text == "(") && t.Upper() != "REPLACE" && t.Upper() != "FILTER" && t.Upper() != "LEFT" && t.Upper() != "RIGHT" {
			p.fail("unexpected keyword %s in an expression", t.Upper())
		}
	}
	if !isIdentTok(*t) {
		p.fail("unexpected %s in an expression", describe(*t))
	}
	n := p.parseName()
	if p.isOp(".") && p.tok(1).Kind == Op && p.tok(1).Text == "*" {
		p.i += 2
		return &StarExpr{Qualifier: n.Parts}
	}
	if p.isOp("(") {
		return p.parseFuncCall(n)
	}
	c := p.cols.Alloc(nodeBlock)
	c.Name = n
	return c
}

func (p *parser) parseCase() Expr {
	p.expectKwID(kwCASE)
	c := p.cases.Alloc(nodeBlock)
	if !p.isKwID(kwWHEN) {
		c.Operand = p.parseExpr()
	}
	mark := len(p.whenStack)
	for p.acceptKwID(kwWHEN) {
		w := p.parseExpr()
		p.expectKwID(kwTHEN)
		then := p.parseExpr()
		p.whenStack = append(p.whenStack, [2]Expr{w, then})
	}
	if k := len(p.whenStack) - mark; k > 0 {
		c.Whens = p.whensBuf.Take(k, 64)
		copy(c.Whens, p.whenStack[mark:])
		clear(p.whenStack[mark:])
		p.whenStack = p.whenStack[:mark]
	}
	if p.acceptKwID(kwELSE) {
		c.Else = p.parseExpr()
	}
	p.expectKwID(kwEND)
	return c
}

func (p *parser) parseFuncCall(n Name) *Func {
	f := p.funcs.Alloc(nodeBlock)
	f.Name = n
	p.expectOp("(")
	mark := len(p.argStack)
	if p.acceptKwID(kwDISTINCT) {
		f.Distinct = true
	} else {
		p.acceptKwID(kwALL)
	}
	if p.isOp("*") && (p.tok(1).Kind == Op && p.tok(1).Text == ")") {
		p.i++
		f.Star = true
	}
	// afterComma: a ',' was read, so an argument must follow; f(a,) and
	// coalesce(, '') are syntax errors in every engine.
	afterComma := false
	for !p.isOp(")") {
		t := p.tok(0)
		switch {
		case t.Kind == Op && t.Text == ",":
			if afterComma || len(p.argStack) == mark && len(f.Seps) == 0 {
				p.fail("empty argument of %s: expected an expression before ','", n.String())
			}
			p.i++
			afterComma = true
			continue
		case isKwID(*t, kwORDER) && isKwID(p.peekN(1), kwBY) && afterComma:
			p.fail("empty argument of %s: expected an expression after ','", n.String())
		}
		afterComma = false
		switch {
		case isKwID(*t, kwORDER) && isKwID(p.peekN(1), kwBY):
			p.i += 2
			f.OrderBy = p.parseOrderItems()
			continue
		case (isKwID(*t, kwIGNORE) || isKwID(*t, kwRESPECT)) && isKwID(p.peekN(1), kwNULLS):
			p.i += 2
			continue
		case isKwID(*t, kwLIMIT):
			p.i++
			p.parseExpr()
			continue
		case isKwID(*t, kwSEPARATOR):
			p.i++
			p.parseExpr()
			continue
		case (isKwID(*t, kwBOTH) || isKwID(*t, kwLEADING) || isKwID(*t, kwTRAILING)) && !(p.tok(1).Kind == Op && (p.tok(1).Text == "," || p.tok(1).Text == ")")):
			p.i++
			p.argStack = append(p.argStack, &Keyword{Word: t.Upper()})
			if p.acceptKwID(kwFROM) {
				f.Seps = append(f.Seps, "FROM")
			}
			continue
		case p.startsQuery() && !p.isKwID(kwTABLE) && !p.isKwID(kwVALUES) && !p.isKwID(kwFROM):
			q := p.parseQuery()
			p.argStack = append(p.argStack, &Subquery{Query: q, Kind: "SCALAR"})
			continue
		case isIdentTok(*t) && p.tok(1).Kind == Op && (p.tok(1).Text == "=>" || p.tok(1).Text == ":=" && p.d.Name != "snowflake"):
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
		if !p.isOp(",") && !p.isOp(")") && !(p.tok(0).Kind == Ident && (argSeps[p.tok(0).Upper()] || p.tok(0).Upper() == "ORDER" || p.tok(0).Upper() == "IGNORE" || p.tok(0).Upper() == "RESPECT" || p.tok(0).Upper() == "LIMIT" || p.tok(0).Upper() == "SEPARATOR")) {
			p.fail("expected ',' or ')' in the arguments of %s, found %s", n.String(), describe(p.peek()))
		}
	}
	if afterComma {
		p.fail("empty argument of %s: expected an expression after ','", n.String())
	}
	p.expectOp(")")
	if k := len(p.argStack) - mark; k > 0 {
		f.Args = p.exprBuf.Take(k, 256)
		copy(f.Args, p.argStack[mark:])
		clear(p.argStack[mark:])
		p.argStack = p.argStack[:mark]
	}
	for {
		switch {
		case p.acceptKwID(kwIGNORE, kwNULLS), p.acceptKwID(kwRESPECT, kwNULLS):
		case p.isKwID(kwWITHIN) && isKwID(p.peekN(1), kwGROUP):
			p.i += 2
			p.expectOp("(")
			p.expectKwID(kwORDER)
			p.expectKwID(kwBY)
			f.WithinGroup = p.parseOrderItems()
			p.expectOp(")")
		case p.isKwID(kwFILTER) && p.tok(1).Kind == Op && p.tok(1).Text == "(":
			p.i += 2
			p.acceptKwID(kwWHERE)
			f.Filter = p.parseExpr()
			p.expectOp(")")
		case p.isKwID(kwOVER):
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
	w := p.windows.Alloc(nodeBlock)
	if t := p.peek(); isIdentTok(t) && !isKwID(t, kwPARTITION) && !isKwID(t, kwORDER) && !isKwID(t, kwROWS) && !isKwID(t, kwRANGE) && !isKwID(t, kwGROUPS) {
		p.i++
		w.Name = strings.ToUpper(t.Text)
	}
	if p.acceptKwID(kwPARTITION, kwBY) {
		w.PartitionBy = p.parseExprList()
	}
	if p.acceptKwID(kwORDER, kwBY) {
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
