package sqldiff

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// env is the FROM scope of one SELECT block: each qualifier a column may be
// written with (alias, table name, its last part) maps to the position of
// its FROM item, so that renaming an alias changes nothing.
type env struct {
	parent *env
	quals  map[string]string
	// single is set when the block reads one relation: a qualifier then
	// adds nothing (t.a is a), so it is dropped.
	single bool
}

// lookup returns the canonical qualifier: the item's position, prefixed
// with one ^ per enclosing scope for a correlated reference.
func (e *env) lookup(q string) (string, bool) {
	up := ""
	for ; e != nil; e = e.parent {
		if v, ok := e.quals[q]; ok {
			return up + v, true
		}
		up += "^"
	}
	return "", false
}

// renderer writes SQL text of one side. canon replaces qualifiers and CTE
// names by their canonical forms (what is compared); otherwise the text
// keeps the names as written (what a reviewer reads).
type renderer struct {
	canon bool
	// cte maps this side's CTE names to the name they are compared under
	// (the current side's name of a renamed CTE).
	cte map[string]string
	// rel names relations by what they stand for (a dbt parent's name),
	// keyed by the lower-case name as written; nil: as written.
	rel map[string]string
}

// fromItem is one relation of a flattened FROM clause with the join that
// brought it in ("" for the first, COMMA for a comma join).
type fromItem struct {
	join    string
	natural bool
	t       sqlparse.TableExpr
	on      sqlparse.Expr
	using   []string
}

func flattenFrom(from []sqlparse.TableExpr) []fromItem {
	var out []fromItem
	for i, t := range from {
		jt := ""
		if i > 0 {
			jt = "COMMA"
		}
		out = flattenOne(out, t, jt)
	}
	return out
}

func flattenOne(out []fromItem, t sqlparse.TableExpr, jt string) []fromItem {
	if j, ok := t.(*sqlparse.Join); ok {
		out = flattenOne(out, j.Left, jt)
		return append(out, fromItem{join: j.Type, natural: j.Natural, t: j.Right, on: j.On, using: j.Using})
	}
	return append(out, fromItem{join: jt, t: t})
}

// aliasOf is the alias a FROM item is known by, "" when it has none.
func aliasOf(t sqlparse.TableExpr) string {
	switch x := t.(type) {
	case *sqlparse.TableRef:
		return x.Alias
	case *sqlparse.DerivedTable:
		return x.Alias
	case *sqlparse.TableFunc:
		return x.Alias
	case *sqlparse.ValuesTable:
		return x.Alias
	case *sqlparse.Pivot:
		return x.Alias
	case *sqlparse.Unpivot:
		return x.Alias
	case *sqlparse.ParenTable:
		return x.Alias
	}
	return ""
}

// newEnv builds the scope of a SELECT block's flattened FROM items, each
// known by its position.
func newEnv(items []fromItem, parent *env) *env {
	ids := make([]string, len(items))
	for k := range items {
		ids[k] = "$" + strconv.Itoa(k)
	}
	return envWithIDs(items, ids, parent)
}

// envWithIDs builds the scope with the given canonical id per item: the
// comparison gives an item and its counterpart on the other side one id.
func envWithIDs(items []fromItem, ids []string, parent *env) *env {
	e := &env{parent: parent, quals: map[string]string{}, single: len(items) == 1}
	for k, it := range items {
		pos := ids[k]
		if a := aliasOf(it.t); a != "" {
			e.quals[a] = pos
			continue
		}
		if tr, ok := it.t.(*sqlparse.TableRef); ok {
			e.quals[tr.Name.String()] = pos
			if _, taken := e.quals[tr.Name.Last()]; !taken {
				e.quals[tr.Name.Last()] = pos
			}
		}
	}
	return e
}

// expr renders an expression with sqlparse's canonical formatter.
func (r *renderer) expr(e sqlparse.Expr, sc *env) string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	sqlparse.FormatTo(&b, e, func(w sqlparse.Writer, c *sqlparse.ColumnRef) bool {
		if !r.canon {
			return false
		}
		parts := c.Name.Parts
		for k := len(parts) - 1; k >= 1; k-- {
			q, ok := sc.lookup(strings.Join(parts[:k], "."))
			if !ok {
				continue
			}
			if sc.single && !strings.HasPrefix(q, "^") {
				w.WriteString(strings.Join(parts[k:], "."))
				return true
			}
			w.WriteString(q)
			for _, p := range parts[k:] {
				w.WriteString(".")
				w.WriteString(p)
			}
			return true
		}
		return false
	}, func(w sqlparse.Writer, q *sqlparse.Query) bool {
		w.WriteString(r.query(q, sc))
		return true
	})
	return b.String()
}

// top renders an expression for a reader: without the parentheses the
// canonical form puts around a whole binary expression.
func (r *renderer) top(e sqlparse.Expr, sc *env) string {
	return unwrap(r.expr(e, sc))
}

// unwrap drops one pair of parentheses around all of s.
func unwrap(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	depth := 0
	for i := 0; i < len(s)-1; i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 {
			return s
		}
	}
	return s[1 : len(s)-1]
}

func (r *renderer) exprs(es []sqlparse.Expr, sc *env) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = r.expr(e, sc)
	}
	return strings.Join(parts, ", ")
}

func (r *renderer) order(items []sqlparse.OrderItem, sc *env) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = r.expr(it.Expr, sc)
		if it.Desc {
			parts[i] += " DESC"
		}
	}
	return strings.Join(parts, ", ")
}

// query renders a whole query on one line.
func (r *renderer) query(q *sqlparse.Query, sc *env) string {
	if q == nil {
		return ""
	}
	var b strings.Builder
	if q.With != nil {
		b.WriteString("WITH ")
		if q.With.Recursive {
			b.WriteString("RECURSIVE ")
		}
		for i, c := range q.With.CTEs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(r.cteName(c.Name))
			if len(c.Columns) > 0 {
				b.WriteString(" (" + strings.Join(c.Columns, ", ") + ")")
			}
			b.WriteString(" AS (" + r.query(c.Query, sc) + ")")
		}
		b.WriteString(" ")
	}
	b.WriteString(r.body(q.Body, sc))
	b.WriteString(r.tail(q, sc))
	return b.String()
}

// tail renders ORDER BY, LIMIT and OFFSET of a query, each with a leading
// space.
func (r *renderer) tail(q *sqlparse.Query, sc *env) string {
	s := ""
	if o := r.orderBy(q, sc); o != "" {
		s += " " + o
	}
	if l := r.limit(q, sc); l != "" {
		s += " " + l
	}
	return s
}

func (r *renderer) orderBy(q *sqlparse.Query, sc *env) string {
	if len(q.OrderBy) == 0 {
		return ""
	}
	return "ORDER BY " + r.order(q.OrderBy, r.orderEnv(q, sc))
}

// orderEnv is the scope ORDER BY reads: the FROM of the query's SELECT.
func (r *renderer) orderEnv(q *sqlparse.Query, sc *env) *env {
	if s, ok := q.Body.(*sqlparse.Select); ok {
		return newEnv(flattenFrom(s.From), sc)
	}
	return sc
}

func (r *renderer) limit(q *sqlparse.Query, sc *env) string {
	s := ""
	if q.Limit != nil {
		s = "LIMIT " + r.expr(q.Limit, sc)
	}
	if q.Offset != nil {
		if s != "" {
			s += " "
		}
		s += "OFFSET " + r.expr(q.Offset, sc)
	}
	return s
}

func (r *renderer) cteName(n string) string {
	if r.canon {
		if m, ok := r.cte[n]; ok {
			return m
		}
	}
	return n
}

func (r *renderer) body(b sqlparse.QueryBody, sc *env) string {
	switch x := b.(type) {
	case *sqlparse.Select:
		return r.selectText(x, sc)
	case *sqlparse.SetOp:
		return r.body(x.Left, sc) + " " + setOpWord(x) + " " + r.body(x.Right, sc)
	case *sqlparse.Query:
		return "(" + r.query(x, sc) + ")"
	case *sqlparse.Values:
		return r.values(x, sc)
	}
	return ""
}

func setOpWord(s *sqlparse.SetOp) string {
	w := s.Op
	if s.All {
		w += " ALL"
	}
	if s.ByName {
		w += " BY NAME"
	}
	return w
}

func (r *renderer) values(v *sqlparse.Values, sc *env) string {
	rows := make([]string, len(v.Rows))
	for i, row := range v.Rows {
		rows[i] = "(" + r.exprs(row, sc) + ")"
	}
	return "VALUES " + strings.Join(rows, ", ")
}

func (r *renderer) selectText(s *sqlparse.Select, sc *env) string {
	items := flattenFrom(s.From)
	inner := newEnv(items, sc)
	var b strings.Builder
	b.WriteString("SELECT")
	if d := r.distinct(s, inner); d != "" {
		b.WriteString(" " + d)
	}
	if s.As != "" {
		b.WriteString(" AS " + s.As)
	}
	for i, it := range s.Items {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + r.item(it, inner))
	}
	if s.ImplicitStar {
		b.WriteString(" *")
	}
	if len(items) > 0 {
		b.WriteString(" FROM ")
		for k, it := range items {
			if k > 0 {
				b.WriteString(" ")
			}
			b.WriteString(r.joinClause(it, inner, sc))
		}
	}
	if s.Where != nil {
		b.WriteString(" WHERE " + r.expr(s.Where, inner))
	}
	if g := r.groupBy(s, inner); g != "" {
		b.WriteString(" " + g)
	}
	if s.Having != nil {
		b.WriteString(" HAVING " + r.expr(s.Having, inner))
	}
	if s.Qualify != nil {
		b.WriteString(" QUALIFY " + r.expr(s.Qualify, inner))
	}
	if w := r.windows(s, inner); w != "" {
		b.WriteString(" " + w)
	}
	return b.String()
}

func (r *renderer) distinct(s *sqlparse.Select, sc *env) string {
	switch {
	case len(s.DistinctOn) > 0:
		return "DISTINCT ON (" + r.exprs(s.DistinctOn, sc) + ")"
	case s.Distinct:
		return "DISTINCT"
	}
	return ""
}

func (r *renderer) groupBy(s *sqlparse.Select, sc *env) string {
	switch {
	case s.GroupByAll:
		return "GROUP BY ALL"
	case len(s.GroupBy) > 0:
		return "GROUP BY " + r.exprs(s.GroupBy, sc)
	}
	return ""
}

// windows renders the named windows in name order (a map in the AST).
func (r *renderer) windows(s *sqlparse.Select, sc *env) string {
	if len(s.Windows) == 0 {
		return ""
	}
	names := make([]string, 0, len(s.Windows))
	for n := range s.Windows {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		w := s.Windows[n]
		p := ""
		if len(w.PartitionBy) > 0 {
			p += "PARTITION BY " + r.exprs(w.PartitionBy, sc) + " "
		}
		if len(w.OrderBy) > 0 {
			p += "ORDER BY " + r.order(w.OrderBy, sc) + " "
		}
		parts[i] = n + " AS (" + strings.TrimSpace(p+w.Frame) + ")"
	}
	return "WINDOW " + strings.Join(parts, ", ")
}

// itemName is the output column name of a select item, "" when the engine
// would invent one.
func itemName(it *sqlparse.SelectItem) string {
	if it.Alias != "" {
		return it.Alias
	}
	switch x := it.Expr.(type) {
	case *sqlparse.ColumnRef:
		return x.Name.Last()
	case *sqlparse.Access:
		if x.Op != "[" {
			return x.Field
		}
	case *sqlparse.Cast:
		if c, ok := x.Expr.(*sqlparse.ColumnRef); ok {
			return c.Name.Last()
		}
	}
	return ""
}

// itemExpr renders a select item without its alias.
func (r *renderer) itemExpr(it *sqlparse.SelectItem, sc *env) string {
	if it.Star == nil {
		return r.expr(it.Expr, sc)
	}
	st := it.Star
	s := "*"
	if len(st.Qualifier) > 0 {
		q := strings.Join(st.Qualifier, ".")
		if c, ok := sc.lookup(q); ok && r.canon {
			q = c
		}
		s = q + ".*"
	}
	if len(st.Exclude) > 0 {
		s += " EXCLUDE (" + strings.Join(st.Exclude, ", ") + ")"
	}
	if len(st.Replace) > 0 {
		parts := make([]string, len(st.Replace))
		for i, rp := range st.Replace {
			parts[i] = r.item(rp, sc)
		}
		s += " REPLACE (" + strings.Join(parts, ", ") + ")"
	}
	for _, rn := range st.Rename {
		s += " RENAME (" + rn[0] + " AS " + rn[1] + ")"
	}
	if st.HasILike {
		s += " ILIKE '" + st.ILike + "'"
	}
	return s
}

func (r *renderer) item(it *sqlparse.SelectItem, sc *env) string {
	s := r.itemExpr(it, sc)
	if !r.canon {
		s = unwrap(s)
	}
	if it.Star == nil && it.Alias != "" {
		s += " AS " + it.Alias
	}
	return s
}

// relation renders a FROM item without its alias: what it reads.
func (r *renderer) relation(t sqlparse.TableExpr, sc *env) string {
	switch x := t.(type) {
	case *sqlparse.TableRef:
		n := x.Name.String()
		if len(x.Name.Parts) == 1 {
			if _, ok := r.cte[n]; ok {
				return r.cteName(n)
			}
		}
		if m, ok := r.rel[strings.ToLower(n)]; ok {
			return m
		}
		return n
	case *sqlparse.DerivedTable:
		s := "(" + r.query(x.Query, sc) + ")"
		if x.Lateral {
			s = "LATERAL " + s
		}
		return s
	case *sqlparse.TableFunc:
		s := r.expr(x.Func, sc)
		if x.Lateral {
			s = "LATERAL " + s
		}
		if x.WithOffset {
			s += " WITH OFFSET"
		}
		return s
	case *sqlparse.ValuesTable:
		return "(" + r.values(x.Values, sc) + ")"
	case *sqlparse.Pivot:
		aggs := make([]string, len(x.Aggs))
		for i, a := range x.Aggs {
			aggs[i] = r.item(a, sc)
		}
		var ins []string
		for _, in := range x.In {
			vals := make([]string, len(in))
			for i, v := range in {
				vals[i] = r.item(v, sc)
			}
			ins = append(ins, "("+strings.Join(vals, ", ")+")")
		}
		s := r.relation(x.Source, sc) + " PIVOT (" + strings.Join(aggs, ", ") + " FOR " + r.exprs(x.For, sc) + " IN " + strings.Join(ins, " ")
		if len(x.GroupBy) > 0 {
			s += " GROUP BY " + r.exprs(x.GroupBy, sc)
		}
		return s + ")"
	case *sqlparse.Unpivot:
		in := make([]string, len(x.In))
		for i, v := range x.In {
			in[i] = r.item(v, sc)
		}
		return r.relation(x.Source, sc) + " UNPIVOT (" + strings.Join(x.ValueCols, ", ") + " FOR " + x.NameCol + " IN (" + strings.Join(in, ", ") + "))"
	case *sqlparse.ParenTable:
		items := flattenFrom([]sqlparse.TableExpr{x.Inner})
		inner := newEnv(items, sc)
		parts := make([]string, len(items))
		for k, it := range items {
			parts[k] = r.joinClause(it, inner, sc)
		}
		return "(" + strings.Join(parts, " ") + ")"
	case *sqlparse.Join:
		return r.relation(&sqlparse.ParenTable{Inner: x}, sc)
	}
	return ""
}

// joinWord is how a FROM item joins: "" for the first item.
func joinWord(it fromItem) string {
	switch it.join {
	case "":
		return ""
	case "COMMA":
		return ","
	}
	w := it.join + " JOIN"
	if it.natural {
		w = "NATURAL " + w
	}
	return w
}

// joinClause renders one FROM item with its join and condition; the
// relation's own expressions are in the outer scope sc, the condition in
// the block's scope inner.
func (r *renderer) joinClause(it fromItem, inner, sc *env) string {
	rel := r.relation(it.t, sc)
	if !r.canon {
		if a := aliasOf(it.t); a != "" {
			rel += " AS " + a
		}
	}
	s := rel
	if w := joinWord(it); w != "" {
		s = w + " " + rel
	}
	if it.on != nil {
		s += " ON " + r.top(it.on, inner)
	}
	if len(it.using) > 0 {
		s += " USING (" + strings.Join(it.using, ", ") + ")"
	}
	return s
}
