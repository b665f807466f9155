// Resolver stage: one SELECT block — FROM, the select list, WHERE, GROUP BY,
// HAVING, QUALIFY and ORDER BY — and the kind of each output column.

package cll

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

func (a *analyzer) selectBlock(s *sqlparse.Select, env *cteEnv, outer *scope, orderBy []sqlparse.OrderItem) *relation {
	sc := a.scopes.Alloc(resBlock)
	*sc = scope{parent: outer, windows: s.Windows, env: env}
	out := a.newRel()
	rowParts := a.u64Buf.Take(8, 512)[:0]
	if len(s.From) > 0 {
		sc.sources = a.srcBuf.Take(4, 512)[:0]
	}
	for _, te := range s.From {
		a.addTable(te, sc, env, out, &rowParts)
	}
	if s.Distinct {
		a.st.Distinct = true
		rowParts = append(rowParts, hashStr("distinct"))
	}
	for _, e := range s.DistinctOn {
		out.rowDeps = a.appendDeps(out.rowDeps, a.rowExprDeps(e, sc, nil, false))
		rowParts = append(rowParts, hashDigests("don", a.digestExpr(e, sc)))
	}
	// Select list.
	// aggItems (which items aggregate) only matters for GROUP BY ALL.
	var aggItems []bool
	for idx, it := range s.Items {
		if it.Star != nil {
			cols := a.expandStar(it.Star, sc, env, out)
			switch {
			case len(sc.items) == 0 && idx == len(s.Items)-1:
				// Share the expansion; the capped capacity makes a later
				// append copy.
				sc.items = cols[:len(cols):len(cols)]
			case len(sc.items) == 0:
				sc.items = append(a.rcolBuf.Take(len(cols)+len(s.Items)-idx-1, 512)[:0], cols...)
			default:
				sc.items = a.appendRcols(sc.items, cols...)
			}
			if s.GroupByAll {
				aggItems = append(aggItems, make([]bool, len(cols))...)
			}
			continue
		}
		if sc.items == nil {
			sc.items = a.rcolBuf.Take(len(s.Items)-idx, 512)[:0]
		}
		if calls := columnsCalls(it.Expr); len(calls) > 0 {
			cols := a.expandColumns(it, calls, sc)
			sc.items = a.appendRcols(sc.items, cols...)
			if s.GroupByAll {
				agg := hasAggregate(it.Expr)
				for range cols {
					aggItems = append(aggItems, agg)
				}
			}
			continue
		}
		ctx := &exprCtx{sc: sc, aliases: sc.items}
		l := a.exprLin(it.Expr, ctx)
		name := it.Alias
		if name == "" {
			name = a.unaliasedName(s.Items[:idx], len(sc.items), it.Expr)
		}
		l = classify(it.Expr, l, name)
		sc.items = a.appendRcols(sc.items, rcol{name: name, l: l})
		if s.GroupByAll {
			aggItems = append(aggItems, hasAggregate(it.Expr))
		}
		if a.structure {
			a.collectAggs(it.Expr)
		}
	}
	out.cols = sc.items
	if s.Where != nil {
		out.rowDeps = a.appendDeps(out.rowDeps, a.rowExprDeps(s.Where, sc, sc.items, false))
		rowParts = append(rowParts, hashDigests("where", a.digestExpr(s.Where, sc)))
		if a.structure {
			a.st.Filters = append(a.st.Filters, sqlparse.Format(s.Where))
		}
	}
	if s.GroupByAll {
		for i, c := range sc.items {
			if !aggItems[i] {
				out.rowDeps = a.appendDeps(out.rowDeps, c.l.deps)
				rowParts = append(rowParts, hashDigests("group", c.l.digest))
				a.st.GroupBy = append(a.st.GroupBy, c.name)
			}
		}
	}
	for _, g := range s.GroupBy {
		out.rowDeps = a.appendDeps(out.rowDeps, a.rowExprDeps(g, sc, sc.items, false))
		rowParts = append(rowParts, hashDigests("group", a.digestExpr(g, sc)))
		if a.structure {
			a.st.GroupBy = append(a.st.GroupBy, sqlparse.Format(g))
		}
	}
	if s.Having != nil {
		out.rowDeps = a.appendDeps(out.rowDeps, a.rowExprDeps(s.Having, sc, sc.items, false))
		rowParts = append(rowParts, hashDigests("having", a.digestExpr(s.Having, sc)))
		if a.structure {
			a.st.Having = append(a.st.Having, sqlparse.Format(s.Having))
		}
	}
	if s.Qualify != nil {
		out.rowDeps = a.appendDeps(out.rowDeps, a.rowExprDeps(s.Qualify, sc, sc.items, false))
		rowParts = append(rowParts, hashDigests("qualify", a.digestExpr(s.Qualify, sc)))
		if a.structure {
			a.st.QualifyFilters = append(a.st.QualifyFilters, sqlparse.Format(s.Qualify))
		}
	}
	for _, o := range orderBy {
		out.rowDeps = a.appendDeps(out.rowDeps, a.rowExprDeps(o.Expr, sc, sc.items, true))
		rowParts = append(rowParts, hashDigests("order", a.digestExpr(o.Expr, sc)))
		if a.structure {
			a.st.OrderBy = append(a.st.OrderBy, sqlparse.Format(o.Expr))
		}
	}
	slices.Sort(rowParts)
	out.rowDigest = hashDigests("rows", rowParts...)
	return out
}

// classify sets the kind of a select item from its expression.
// l must be owned by the caller (exprLin always returns a fresh lin).
func classify(e sqlparse.Expr, l *lin, name string) *lin {
	out := l
	if isBareColumn(e) {
		if l.kind == KindPassthrough || l.kind == KindRenamed {
			if equalFold(l.orig, name) {
				out.kind = KindPassthrough
			} else {
				out.kind = KindRenamed
			}
		}
		return out
	}
	switch {
	case len(l.deps) == 0:
		out.kind = KindSource
	case hasAggregate(e):
		out.kind = KindAggregate
	default:
		out.kind = KindDerived
	}
	out.orig = ""
	return out
}

func isBareColumn(e sqlparse.Expr) bool {
	_, ok := e.(*sqlparse.ColumnRef)
	return ok
}

// unaliasedName names an unaliased select item. A cast follows its
// engine's rule (the record's names.cast_output): Postgres, Redshift and
// Spark name CAST(col AS t) and col::t after col; Snowflake and DuckDB
// after the expression's text; BigQuery calls it f<k>_ (k counts the
// anonymous items before it) and Trino _col<position>. Naming a cast "col"
// where the engine does not would resolve a downstream "col" the engine
// refuses.
func (a *analyzer) unaliasedName(before []*sqlparse.SelectItem, pos int, e sqlparse.Expr) string {
	c, ok := e.(*sqlparse.Cast)
	if !ok {
		return a.exprName(e)
	}
	switch a.d.CastOutput {
	case "operand":
		if isPath(c.Expr) {
			return a.exprName(c.Expr)
		}
		if inner, ok := c.Expr.(*sqlparse.Cast); ok {
			return a.unaliasedName(before, pos, inner)
		}
	case "text":
		if a.d.Fold == sqlparse.FoldUpper {
			return strings.ToUpper(sqlparse.Format(e))
		}
		return sqlparse.Format(e)
	case "anonymous_f":
		k := 0
		for _, it := range before {
			if it.Alias == "" && it.Star == nil && !isPath(it.Expr) {
				k++
			}
		}
		return fmt.Sprintf("f%d_", k)
	case "anonymous_col":
		return fmt.Sprintf("_col%d", pos)
	}
	if c.Func == "::" {
		return a.exprName(c.Expr)
	}
	return a.exprName(e)
}

// isPath reports whether e is a column or a field of one: what engines
// name an output after.
func isPath(e sqlparse.Expr) bool {
	switch x := e.(type) {
	case *sqlparse.ColumnRef:
		return true
	case *sqlparse.Access:
		return (x.Op == "." || x.Op == ":") && isPath(x.Expr)
	}
	return false
}

func (a *analyzer) exprName(e sqlparse.Expr) string {
	switch x := e.(type) {
	case *sqlparse.ColumnRef:
		return x.Name.Last()
	case *sqlparse.Access:
		if x.Op == "." || x.Op == ":" {
			return a.d.FoldIdent(x.Field)
		}
		return a.exprName(x.Expr)
	case *sqlparse.Cast:
		if x.Func == "::" {
			return a.exprName(x.Expr)
		}
	case *sqlparse.Literal:
		return x.Value
	}
	return strings.ToLower(sqlparse.Format(e))
}
