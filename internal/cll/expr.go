// Resolver stage: expressions — the lineage of an expression (every column
// reference, window and subquery it reads), row-shaping clauses, aggregates.

package cll

import (
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// acc accumulates the lineage an expression walk reports.
type acc struct {
	deps   []dep
	single *lin
	n      int
	mem    *resMem
}

func (c *acc) add(l *lin) {
	if c.deps == nil {
		// Share the first dep list; the capped capacity makes a later
		// append copy instead of writing into l's array.
		c.deps = l.deps[:len(l.deps):len(l.deps)]
	} else {
		c.deps = c.mem.appendDeps(c.deps, l.deps)
	}
	c.single = l
	c.n++
}

type refLin struct {
	ref *sqlparse.ColumnRef
	l   *lin
}

// queryDigest is the digest of a subquery resolved in the expression being
// analysed, for digestCtx.
type queryDigest struct {
	q      *sqlparse.Query
	digest uint64
}

type exprCtx struct {
	sc *scope
	// aliases are select-list outputs usable by name (lateral aliases,
	// HAVING/QUALIFY/ORDER BY aliases).
	aliases []rcol
	// aliasFirst makes output aliases win over source columns (ORDER BY).
	aliasFirst bool
	lambda     map[string]bool
	// columns is the COLUMNS(...) expansion being resolved, if any.
	columns *columnsPick
	// subRow collects row deps of subqueries when resolving a row clause.
	row bool
}

func hasAggregate(e sqlparse.Expr) bool {
	found := false
	walkExpr(e, func(x sqlparse.Expr) {
		if f, ok := x.(*sqlparse.Func); ok && f.Over == nil && inUpper(aggregates, f.Name.Last()) {
			found = true
		}
	})
	return found
}

func (a *analyzer) collectAggs(e sqlparse.Expr) {
	walkExpr(e, func(x sqlparse.Expr) {
		f, ok := x.(*sqlparse.Func)
		if !ok {
			return
		}
		if f.Over != nil {
			a.st.WindowFunctions++
			return
		}
		if !inUpper(aggregates, f.Name.Last()) {
			return
		}
		col := "*"
		if len(f.Args) > 0 {
			col = sqlparse.Format(f.Args[0])
		}
		a.st.Aggregations = append(a.st.Aggregations, Aggregation{Function: strings.ToLower(f.Name.Last()), Column: col})
	})
}

// walkExpr is sqlparse.WalkExpr without window clauses.
func walkExpr(e sqlparse.Expr, fn func(sqlparse.Expr)) { sqlparse.WalkExpr(e, false, fn) }

// exprLin computes the lineage of an expression.
func (a *analyzer) exprLin(e sqlparse.Expr, ctx *exprCtx) *lin {
	mark, qmark := len(a.memo), len(a.qmemo)
	defer func() { a.memo, a.qmemo = a.memo[:mark], a.qmemo[:qmark] }()
	ac := &acc{mem: a.resMem}
	a.visit(e, ctx, ac)
	deps, single, nrefs := ac.deps, ac.single, ac.n
	if _, ok := e.(*sqlparse.ColumnRef); ok && nrefs == 1 && single != nil {
		out := a.newLin(*single)
		out.deps = dedupDepsIn(out.deps, a.resMem)
		return out
	}
	out := a.newLin(lin{deps: dedupDepsIn(deps, a.resMem), kind: KindDerived})
	if len(out.deps) == 0 {
		out.kind = KindSource
	}
	out.digest = a.digestCtx(e, ctx)
	return out
}

// visit walks an expression, reporting the lineage of every column
// reference and subquery it contains.
func (a *analyzer) visit(e sqlparse.Expr, ctx *exprCtx, emit *acc) {
	switch x := e.(type) {
	case nil:
	case *sqlparse.ColumnRef:
		l, _ := a.resolveName(x, ctx)
		if l != nil {
			a.memo = append(a.memo, refLin{x, l})
			emit.add(l)
		}
	case *sqlparse.Func:
		if f, ok := columnsCall(x); ok {
			a.visitColumns(f, ctx, emit)
			return
		}
		datey := isDateFunc(x.Name.Last())
		// COUNT(*) and COUNT(t.*) count rows and read no column; any other
		// star argument (HASH(*), OBJECT_CONSTRUCT(*), TO_JSON(t.*)) is the
		// whole row.
		counts := strings.EqualFold(x.Name.Last(), "COUNT")
		if x.Star && !counts {
			emit.add(a.wholeRow(ctx, nil))
		}
		for _, arg := range x.Args {
			if _, star := arg.(*sqlparse.StarExpr); star && counts {
				continue
			}
			if datey {
				if c, ok := arg.(*sqlparse.ColumnRef); ok && len(c.Name.Parts) == 1 && !c.Name.IsQuoted(0) && sqlparse.IsDatePart(strings.ToUpper(c.Name.Parts[0])) && !a.strongColumn(c.Name.Parts[0], ctx) {
					continue
				}
				if f, ok := arg.(*sqlparse.Func); ok && sqlparse.IsDatePart(strings.ToUpper(f.Name.Last())) && len(f.Args) == 1 {
					if c, ok := f.Args[0].(*sqlparse.ColumnRef); ok && sqlparse.IsDatePart(strings.ToUpper(c.Name.Last())) {
						continue
					}
				}
			}
			a.visit(arg, ctx, emit)
		}
		a.visit(x.Filter, ctx, emit)
		for _, o := range x.OrderBy {
			a.visit(o.Expr, ctx, emit)
		}
		for _, o := range x.WithinGroup {
			a.visit(o.Expr, ctx, emit)
		}
		if x.Over != nil {
			w := x.Over
			if w.Name != "" && ctx.sc != nil {
				if nw, ok := ctx.sc.windows[w.Name]; ok {
					a.visitWindow(nw, ctx, emit)
				}
			}
			a.visitWindow(w, ctx, emit)
		}
	case *sqlparse.StarExpr:
		emit.add(a.wholeRow(ctx, x.Qualifier))
	case *sqlparse.Binary:
		a.visit(x.Left, ctx, emit)
		a.visit(x.Right, ctx, emit)
	case *sqlparse.Unary:
		a.visit(x.Expr, ctx, emit)
	case *sqlparse.Case:
		a.visit(x.Operand, ctx, emit)
		for _, w := range x.Whens {
			a.visit(w[0], ctx, emit)
			a.visit(w[1], ctx, emit)
		}
		a.visit(x.Else, ctx, emit)
	case *sqlparse.Cast:
		a.visit(x.Expr, ctx, emit)
	case *sqlparse.InExpr:
		a.visit(x.Expr, ctx, emit)
		for _, i := range x.List {
			a.visit(i, ctx, emit)
		}
		if x.Query != nil {
			a.subquery(x.Query, ctx, emit)
		}
	case *sqlparse.Between:
		a.visit(x.Expr, ctx, emit)
		a.visit(x.Lo, ctx, emit)
		a.visit(x.Hi, ctx, emit)
	case *sqlparse.Access:
		a.visit(x.Expr, ctx, emit)
		if x.Index != nil {
			if _, lit := x.Index.(*sqlparse.Literal); !lit {
				a.visit(x.Index, ctx, emit)
			}
		}
	case *sqlparse.List:
		for _, i := range x.Items {
			a.visit(i, ctx, emit)
		}
	case *sqlparse.Lambda:
		inner := *ctx
		inner.lambda = map[string]bool{}
		for k := range ctx.lambda {
			inner.lambda[k] = true
		}
		for _, p := range x.Params {
			inner.lambda[strings.ToLower(p)] = true
		}
		a.visit(x.Body, &inner, emit)
	case *sqlparse.Named:
		a.visit(x.Value, ctx, emit)
	case *sqlparse.TypedLiteral:
		a.visit(x.Value, ctx, emit)
	case *sqlparse.Subquery:
		a.subquery(x.Query, ctx, emit)
	}
}

func (a *analyzer) visitWindow(w *sqlparse.WindowSpec, ctx *exprCtx, emit *acc) {
	for _, p := range w.PartitionBy {
		a.visit(p, ctx, emit)
	}
	for _, o := range w.OrderBy {
		a.visit(o.Expr, ctx, emit)
	}
}

// strongColumn reports whether a known (schema-backed) source has the column.
func (a *analyzer) strongColumn(name string, ctx *exprCtx) bool {
	for sc := ctx.sc; sc != nil; sc = sc.parent {
		for _, s := range sc.sources {
			if _, ok := s.rel.find(name); ok {
				return true
			}
		}
	}
	return false
}

// subquery resolves a nested query and reports its outputs and, because a
// subquery's filter decides the value it returns, its row deps too.
func (a *analyzer) subquery(q *sqlparse.Query, ctx *exprCtx, emit *acc) {
	a.st.HasSubquery = true
	var env *cteEnv
	if ctx.sc != nil {
		env = ctx.sc.env
	}
	rel := a.query(q, env, ctx.sc)
	parts := a.u64Buf.Take(len(rel.cols)+1, 512)[:0]
	parts = append(parts, rel.rowDigest)
	for _, c := range rel.cols {
		emit.add(c.l)
		parts = append(parts, c.l.digest)
	}
	a.qmemo = append(a.qmemo, queryDigest{q, hashDigests("subquery", parts...)})
	if len(rel.rowDeps) > 0 {
		emit.add(&lin{deps: rel.rowDeps})
	}
}

// rowExprDeps returns the physical columns an expression in a row-shaping
// clause reads. Positional references (ORDER BY 1) and output aliases
// resolve to the select list.
func (a *analyzer) rowExprDeps(e sqlparse.Expr, sc *scope, items []rcol, aliasFirst bool) []dep {
	if lit, ok := e.(*sqlparse.Literal); ok && lit.Kind == "number" && items != nil {
		if n, err := strconv.Atoi(lit.Value); err == nil && n >= 1 && n <= len(items) {
			return items[n-1].l.deps
		}
	}
	ctx := &exprCtx{sc: sc, aliases: items, aliasFirst: aliasFirst, row: true}
	ac := &acc{mem: a.resMem}
	a.visit(e, ctx, ac)
	return ac.deps
}
