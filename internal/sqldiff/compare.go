package sqldiff

import (
	"strconv"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// comparer walks the base and current trees side by side.
type comparer struct {
	b, c *sqlparse.Query
	// bc, cc render what is compared; bd, cd what a reviewer reads.
	bc, cc, bd, cd *renderer
	bg, cg         *graph
	changes        []Change
}

func newComparer(b, c *sqlparse.Query, schema map[string][]string, baseRel, curRel map[string]string) *comparer {
	bcte, ccte := map[string]string{}, map[string]string{}
	collectCTEs(b, bcte)
	collectCTEs(c, ccte)
	return &comparer{b: b, c: c,
		bc: &renderer{canon: true, cte: bcte, rel: baseRel}, cc: &renderer{canon: true, cte: ccte, rel: curRel},
		bd: &renderer{cte: bcte, rel: baseRel}, cd: &renderer{cte: ccte, rel: curRel},
		bg: buildGraph(b, schema), cg: buildGraph(c, schema)}
}

// collectCTEs maps every CTE name of q (nested WITHs too) to itself; the
// pairing of renamed CTEs then maps base names to current ones.
func collectCTEs(q *sqlparse.Query, m map[string]string) {
	var visitQ func(q *sqlparse.Query)
	var visitB func(b sqlparse.QueryBody)
	visitB = func(b sqlparse.QueryBody) {
		switch x := b.(type) {
		case *sqlparse.Query:
			visitQ(x)
		case *sqlparse.SetOp:
			visitB(x.Left)
			visitB(x.Right)
		case *sqlparse.Select:
			for _, it := range flattenFrom(x.From) {
				if d, ok := it.t.(*sqlparse.DerivedTable); ok {
					visitQ(d.Query)
				}
			}
		}
	}
	visitQ = func(q *sqlparse.Query) {
		if q == nil {
			return
		}
		if q.With != nil {
			for _, c := range q.With.CTEs {
				m[c.Name] = c.Name
				visitQ(c.Query)
			}
		}
		visitB(q.Body)
	}
	visitQ(q)
}

func (c *comparer) run() {
	c.query(Final, c.b, c.c, c.b, c.c, nil, nil)
}

// add records a change located in node (bn on the base side, cn on the
// current side) at column col ("" for a row-level change), attributing it
// to the final columns it reaches. A removed column is followed on the
// base side, where it still exists.
func (c *comparer) add(kind, scope, col string, bn, cn *sqlparse.Query, before, after string) {
	var cols []string
	if kind == ColumnRemoved {
		cols = c.bg.reach(c.bg.nodes[bn], col)
	} else {
		cols = c.cg.reach(c.cg.nodes[cn], col)
	}
	ch := Change{Kind: kind, Scope: scope, Columns: cols, Before: capClause(before), After: capClause(after)}
	if len(cols) > 0 {
		ch.Column = cols[0]
	}
	c.changes = append(c.changes, ch)
}

// query compares two queries of one scope; bn and cn are the reach nodes
// the query belongs to.
func (c *comparer) query(scope string, b, q *sqlparse.Query, bn, cn *sqlparse.Query, bsc, csc *env) {
	if b.With != nil || q.With != nil {
		c.with(b.With, q.With, bsc, csc)
	}
	c.body(scope, b.Body, q.Body, bn, cn, bsc, csc)
	if x, y := c.bc.orderBy(b, c.bc.orderEnv(b, bsc)), c.cc.orderBy(q, c.cc.orderEnv(q, csc)); x != y {
		c.add(OrderBy, scope, "", bn, cn, c.bd.orderBy(b, nil), c.cd.orderBy(q, nil))
	}
	if x, y := c.bc.limit(b, bsc), c.cc.limit(q, csc); x != y {
		c.add(Limit, scope, "", bn, cn, c.bd.limit(b, nil), c.cd.limit(q, nil))
	}
}

// with pairs CTEs (same name; else same content under another name, a
// rename; else the same position among the unpaired, a renamed and edited
// CTE) and compares each pair in its own scope. A CTE without a
// counterpart shows where it is read (a source or join change).
func (c *comparer) with(bw, cw *sqlparse.With, bsc, csc *env) {
	var bs, cs []*sqlparse.CTE
	if bw != nil {
		bs = bw.CTEs
	}
	if cw != nil {
		cs = cw.CTEs
	}
	pair := make([]int, len(bs))
	used := make([]bool, len(cs))
	for i := range pair {
		pair[i] = -1
		for j, ct := range cs {
			if !used[j] && ct.Name == bs[i].Name {
				pair[i], used[j] = j, true
				break
			}
		}
	}
	for i, bt := range bs {
		if pair[i] >= 0 {
			continue
		}
		for j, ct := range cs {
			if used[j] {
				continue
			}
			c.bc.cte[bt.Name] = ct.Name
			if c.bc.query(bt.Query, bsc) == c.cc.query(ct.Query, csc) {
				pair[i], used[j] = j, true
				break
			}
			c.bc.cte[bt.Name] = bt.Name
		}
	}
	var freeB, freeC []int
	for i := range bs {
		if pair[i] < 0 {
			freeB = append(freeB, i)
		}
	}
	for j := range cs {
		if !used[j] {
			freeC = append(freeC, j)
		}
	}
	for k := 0; k < len(freeB) && k < len(freeC); k++ {
		pair[freeB[k]], used[freeC[k]] = freeC[k], true
		c.bc.cte[bs[freeB[k]].Name] = cs[freeC[k]].Name
	}
	for i, j := range pair {
		if j < 0 {
			continue
		}
		bq, cq := bs[i].Query, cs[j].Query
		c.query(cs[j].Name, bq, cq, bq, cq, bsc, csc)
	}
}

// branches flattens a chain of set operations into its operands and the
// words between them.
func branches(b sqlparse.QueryBody, out []sqlparse.QueryBody, ops []string) ([]sqlparse.QueryBody, []string) {
	if s, ok := b.(*sqlparse.SetOp); ok {
		out, ops = branches(s.Left, out, ops)
		ops = append(ops, setOpWord(s))
		return branches(s.Right, out, ops)
	}
	return append(out, b), ops
}

func (c *comparer) body(scope string, b, q sqlparse.QueryBody, bn, cn *sqlparse.Query, bsc, csc *env) {
	bb, bops := branches(b, nil, nil)
	cb, cops := branches(q, nil, nil)
	if len(bb) > 1 || len(cb) > 1 {
		if !equalStrings(bops, cops) {
			c.add(SetOperation, scope, "", bn, cn, setOpShape(c.bd, bb, bops, bsc), setOpShape(c.cd, cb, cops, csc))
		}
		for i := 0; i < len(bb) && i < len(cb); i++ {
			c.body(scope, bb[i], cb[i], bn, cn, bsc, csc)
		}
		return
	}
	switch x := b.(type) {
	case *sqlparse.Select:
		if y, ok := q.(*sqlparse.Select); ok {
			c.selects(scope, x, y, bn, cn, bsc, csc)
			return
		}
	case *sqlparse.Query:
		if y, ok := q.(*sqlparse.Query); ok {
			c.query(scope, x, y, bn, cn, bsc, csc)
			return
		}
	}
	if c.bc.body(b, bsc) != c.cc.body(q, csc) {
		c.add(Source, scope, "", bn, cn, c.bd.body(b, bsc), c.cd.body(q, csc))
	}
}

// setOpShape renders a set operation for Before/After: its operators, each
// operand cut short (the operands' own changes are reported apart).
func setOpShape(r *renderer, bs []sqlparse.QueryBody, ops []string, sc *env) string {
	s := ""
	for i, b := range bs {
		if i > 0 {
			s += " " + ops[i-1] + " "
		}
		s += clip(r.body(b, sc), 40)
	}
	return s
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// outItem is one select item as compared.
type outItem struct {
	name, canon, disp string
}

func (c *comparer) items(r, d *renderer, s *sqlparse.Select, sc *env) []outItem {
	out := make([]outItem, 0, len(s.Items))
	for _, it := range s.Items {
		out = append(out, outItem{name: itemName(it), canon: r.itemExpr(it, sc), disp: d.item(it, sc)})
	}
	return out
}

func (c *comparer) selects(scope string, b, q *sqlparse.Select, bn, cn *sqlparse.Query, bsc, csc *env) {
	bi, ci := flattenFrom(b.From), flattenFrom(q.From)
	bids, cids := c.matchFrom(bi, ci, bsc, csc)
	benv, cenv := envWithIDs(bi, bids, bsc), envWithIDs(ci, cids, csc)
	// Drop qualifiers only when both sides read one relation, so adding
	// a join does not change how the other columns read.
	benv.single = len(bi) == 1 && len(ci) == 1
	cenv.single = benv.single
	if x, y := c.bc.distinct(b, benv), c.cc.distinct(q, cenv); x != y || b.As != q.As {
		c.add(Distinct, scope, "", bn, cn, c.bd.distinct(b, benv), c.cd.distinct(q, cenv))
	}
	c.from(scope, bi, ci, bids, cids, benv, cenv, bn, cn, bsc, csc)
	c.columns(scope, b, q, bn, cn, benv, cenv)
	for _, f := range []struct {
		word string
		b, c sqlparse.Expr
	}{{"", b.Where, q.Where}, {"HAVING ", b.Having, q.Having}, {"QUALIFY ", b.Qualify, q.Qualify}} {
		if c.bc.expr(f.b, benv) != c.cc.expr(f.c, cenv) {
			c.add(Filter, scope, "", bn, cn, prefixed(f.word, c.bd.top(f.b, benv)), prefixed(f.word, c.cd.top(f.c, cenv)))
		}
	}
	if c.bc.groupBy(b, benv) != c.cc.groupBy(q, cenv) {
		c.add(GroupBy, scope, "", bn, cn, c.bd.groupBy(b, benv), c.cd.groupBy(q, cenv))
	}
	if c.bc.windows(b, benv) != c.cc.windows(q, cenv) {
		// A named window feeds window functions of the select list.
		c.add(ColumnExpression, scope, "", bn, cn, c.bd.windows(b, benv), c.cd.windows(q, cenv))
	}
	if b.ImplicitStar != q.ImplicitStar {
		c.add(ColumnExpression, scope, "", bn, cn, starWord(b.ImplicitStar), starWord(q.ImplicitStar))
	}
}

func starWord(b bool) string {
	if b {
		return "*"
	}
	return ""
}

func prefixed(word, s string) string {
	if s == "" {
		return ""
	}
	return word + s
}

// columns compares the select lists: by output name, a removed name whose
// expression reappears under a new one being a rename; unnamed items by
// their expression.
func (c *comparer) columns(scope string, b, q *sqlparse.Select, bn, cn *sqlparse.Query, benv, cenv *env) {
	bs, cs := c.items(c.bc, c.bd, b, benv), c.items(c.cc, c.cd, q, cenv)
	byName := map[string]int{}
	for i, it := range bs {
		if it.name != "" {
			if _, dup := byName[it.name]; !dup {
				byName[it.name] = i
			}
		}
	}
	seen := make([]bool, len(bs))
	var added []int
	for j, it := range cs {
		i, ok := -1, false
		if it.name != "" {
			i, ok = byName[it.name]
			if ok && seen[i] {
				ok = false
			}
		} else {
			for k, bt := range bs {
				if !seen[k] && bt.name == "" && bt.canon == it.canon {
					i, ok = k, true
					break
				}
			}
		}
		if !ok {
			added = append(added, j)
			continue
		}
		seen[i] = true
		if bs[i].canon != it.canon {
			c.add(ColumnExpression, scope, it.name, bn, cn, bs[i].disp, it.disp)
		}
	}
	for i, bt := range bs {
		if seen[i] {
			continue
		}
		renamed := -1
		for k, j := range added {
			if j >= 0 && cs[j].canon == bt.canon && bt.name != "" && cs[j].name != "" {
				renamed = k
				break
			}
		}
		if renamed >= 0 {
			j := added[renamed]
			added[renamed] = -1
			c.add(ColumnRenamed, scope, cs[j].name, bn, cn, bt.name, cs[j].name)
			continue
		}
		c.add(ColumnRemoved, scope, bt.name, bn, cn, bt.disp, "")
	}
	for _, j := range added {
		if j >= 0 {
			c.add(ColumnAdded, scope, cs[j].name, bn, cn, "", cs[j].disp)
		}
	}
}

// matchFrom pairs the FROM items of two SELECT blocks and gives each pair
// one id: the same relation first (derived tables by their order), then the
// rest by position (a relation replaced). Unpaired items get ids of their
// own, so an added join does not shift what other columns are called.
func (c *comparer) matchFrom(bi, ci []fromItem, bsc, csc *env) (bids, cids []string) {
	key := func(r *renderer, items []fromItem, sc *env) []string {
		keys := make([]string, len(items))
		derived := 0
		for k, it := range items {
			if _, ok := it.t.(*sqlparse.DerivedTable); ok {
				keys[k] = "derived#" + strconv.Itoa(derived)
				derived++
				continue
			}
			keys[k] = r.relation(it.t, sc)
		}
		return keys
	}
	bk, ck := key(c.bc, bi, bsc), key(c.cc, ci, csc)
	bids, cids = make([]string, len(bi)), make([]string, len(ci))
	for j := range ck {
		for i := range bk {
			if bids[i] == "" && bk[i] == ck[j] {
				id := "$" + strconv.Itoa(j)
				bids[i], cids[j] = id, id
				break
			}
		}
	}
	i := 0
	for j := range cids {
		if cids[j] != "" {
			continue
		}
		for i < len(bids) && bids[i] != "" {
			i++
		}
		if i == len(bids) {
			cids[j] = "$c" + strconv.Itoa(j)
			continue
		}
		id := "$" + strconv.Itoa(j)
		bids[i], cids[j] = id, id
	}
	for i := range bids {
		if bids[i] == "" {
			bids[i] = "$b" + strconv.Itoa(i)
		}
	}
	return bids, cids
}

func (c *comparer) from(scope string, bi, ci []fromItem, bids, cids []string, benv, cenv *env, bn, cn *sqlparse.Query, bsc, csc *env) {
	byID := map[string]int{}
	for i, id := range bids {
		byID[id] = i
	}
	for j, cit := range ci {
		i, ok := byID[cids[j]]
		if !ok {
			c.add(Join, scope, "", bn, cn, "", c.cd.joinClause(cit, cenv, csc))
			continue
		}
		bit := bi[i]
		bd, cd := bit.t.(*sqlparse.DerivedTable)
		dd, dok := cit.t.(*sqlparse.DerivedTable)
		switch {
		case cd && dok:
			c.query(scope, bd.Query, dd.Query, bd.Query, dd.Query, bsc, csc)
		case c.bc.relation(bit.t, bsc) != c.cc.relation(cit.t, csc):
			c.add(Source, scope, "", bn, cn, c.bd.relation(bit.t, bsc), c.cd.relation(cit.t, csc))
		}
		if j == 0 && i == 0 {
			continue
		}
		bj := joinWord(bit) + " ON " + c.bc.expr(bit.on, benv) + " USING " + joinParts(bit.using)
		cj := joinWord(cit) + " ON " + c.cc.expr(cit.on, cenv) + " USING " + joinParts(cit.using)
		if bj != cj {
			c.add(Join, scope, "", bn, cn, c.bd.joinClause(bit, benv, bsc), c.cd.joinClause(cit, cenv, csc))
		}
	}
	for i, bit := range bi {
		if _, paired := indexOf(cids, bids[i]); !paired {
			kind := Join
			if i == 0 {
				kind = Source
			}
			c.add(kind, scope, "", bn, cn, c.bd.joinClause(bit, benv, bsc), "")
		}
	}
}

func indexOf(s []string, x string) (int, bool) {
	for i, v := range s {
		if v == x {
			return i, true
		}
	}
	return -1, false
}
