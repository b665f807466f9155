// Resolver stage: PIVOT and UNPIVOT.

package cll

import (
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

func (a *analyzer) subSource(te sqlparse.TableExpr, sc *scope, env *cteEnv) (*scope, *relation) {
	sub := &scope{parent: sc.parent, env: env}
	tmp := &relation{}
	var parts []uint64
	a.addTable(te, sub, env, tmp, &parts)
	// Collapse the sub-scope into one relation with all its columns.
	rel := &relation{rowDeps: tmp.rowDeps, rowDigest: hashDigests("sub", parts...)}
	for _, s := range sub.sources {
		rel.cols = append(rel.cols, s.rel.cols...)
		if s.rel.open {
			rel.starFrom = append(rel.starFrom, s.rel)
		}
		rel.starFrom = append(rel.starFrom, s.rel.starFrom...)
		if s.rel.anyCol != nil && rel.anyCol == nil {
			rel.anyCol, rel.moreCols = s.rel.anyCol, s.rel.moreCols
		}
	}
	return sub, rel
}

// pivot resolves PIVOT. Each output column is one aggregate for one
// combination of pivot values: it depends on the aggregate's columns and on
// the FOR columns, which decide the rows it aggregates (like an aggregate's
// FILTER). The aggregated and FOR columns are row deps; the other source
// columns (or the GROUP BY list) are kept and group the rows. Output names
// follow the engines: the value (or its alias), joined with "_" to the
// aggregate's alias (BigQuery puts the alias first) or, for several
// aggregates without one, to the aggregate's text.
func (a *analyzer) pivot(p *sqlparse.Pivot, sc *scope, env *cteEnv) *source {
	sub, srcRel := a.subSource(p.Source, sc, env)
	ctx := &exprCtx{sc: sub}
	used := map[string]bool{}
	var dig []uint64
	rel := &relation{rowDeps: append([]dep(nil), srcRel.rowDeps...)}
	aggs := make([]*lin, len(p.Aggs))
	for i, it := range p.Aggs {
		aggs[i] = a.exprLin(it.Expr, ctx)
		rel.rowDeps = append(rel.rowDeps, aggs[i].deps...)
		dig = append(dig, aggs[i].digest)
		markUsed(it.Expr, used)
	}
	var forDeps []dep
	for _, e := range p.For {
		l := a.exprLin(e, ctx)
		forDeps = append(forDeps, l.deps...)
		dig = append(dig, l.digest)
		markUsed(e, used)
	}
	rel.rowDeps = append(rel.rowDeps, forDeps...)
	if len(p.GroupBy) > 0 {
		for _, g := range p.GroupBy {
			l := a.exprLin(g, ctx)
			rel.rowDeps = append(rel.rowDeps, l.deps...)
			dig = append(dig, hashDigests("group", l.digest))
			rel.cols = append(rel.cols, rcol{name: a.exprName(g), l: l})
		}
	} else {
		for _, c := range srcRel.cols {
			if !used[strings.ToLower(c.name)] {
				rel.cols = append(rel.cols, c)
			}
		}
		rel.starFrom = srcRel.starFrom
	}
	rel.rowDigest = hashDigests("pivot", append(dig, srcRel.rowDigest)...)
	aliasFirst := a.d.Name == "bigquery"
	for _, v := range a.pivotValues(p.In) {
		for i, ag := range p.Aggs {
			name := v
			switch {
			case ag.Alias != "" && aliasFirst:
				name = ag.Alias + "_" + v
			case ag.Alias != "":
				name = v + "_" + ag.Alias
			case len(p.Aggs) > 1:
				name = v + "_" + strings.ToLower(sqlparse.Format(ag.Expr))
			}
			deps := dedupDeps(append(append([]dep(nil), aggs[i].deps...), forDeps...))
			rel.cols = append(rel.cols, rcol{name: name, l: &lin{deps: deps, kind: pivotKind(deps), digest: hashDigests("pv", aggs[i].digest, hashStr(name))}})
		}
	}
	if p.Dynamic {
		// IN (ANY) or IN (subquery): the pivoted columns' names come from
		// the data; any name not kept from the source is one of them.
		var deps []dep
		for _, l := range aggs {
			deps = append(deps, l.deps...)
		}
		deps = dedupDeps(append(deps, forDeps...))
		rel.anyCol = &lin{deps: deps, kind: pivotKind(deps), digest: hashDigests("pv", dig...)}
		rel.moreCols = true
	}
	rel = renameCols(rel, p.ColAliases)
	return &source{alias: p.Alias, rel: rel}
}

func pivotKind(deps []dep) Kind {
	if len(deps) == 0 {
		return KindSource
	}
	return KindAggregate
}

// pivotValues names the combinations of pivot values, in output order: the
// cross product of the value lists, each value named by its alias or its
// text, joined with "_".
func (a *analyzer) pivotValues(in [][]*sqlparse.SelectItem) []string {
	var out []string
	for k, list := range in {
		names := make([]string, 0, len(list))
		for _, it := range list {
			n := it.Alias
			if n == "" {
				if lit, ok := it.Expr.(*sqlparse.Literal); ok {
					n = lit.Value
				} else if l, ok := it.Expr.(*sqlparse.List); ok {
					// A tuple of values for a tuple of FOR columns.
					parts := make([]string, 0, len(l.Items))
					for _, x := range l.Items {
						if lit, ok := x.(*sqlparse.Literal); ok {
							parts = append(parts, lit.Value)
						} else {
							parts = append(parts, a.exprName(x))
						}
					}
					n = strings.Join(parts, "_")
				} else {
					n = a.exprName(it.Expr)
				}
			}
			names = append(names, n)
		}
		if k == 0 {
			out = names
			continue
		}
		prod := make([]string, 0, len(out)*len(names))
		for _, o := range out {
			for _, n := range names {
				prod = append(prod, o+"_"+n)
			}
		}
		out = prod
	}
	return out
}

func markUsed(e sqlparse.Expr, used map[string]bool) {
	walkExpr(e, func(x sqlparse.Expr) {
		if c, ok := x.(*sqlparse.ColumnRef); ok {
			used[strings.ToLower(c.Name.Last())] = true
		}
	})
}

func (a *analyzer) unpivot(u *sqlparse.Unpivot, sc *scope, env *cteEnv) *source {
	sub, srcRel := a.subSource(u.Source, sc, env)
	ctx := &exprCtx{sc: sub}
	used := map[string]bool{}
	k := len(u.ValueCols)
	valDeps := make([][]dep, k)
	var all []dep
	for _, it := range u.In {
		items := []sqlparse.Expr{it.Expr}
		if l, ok := it.Expr.(*sqlparse.List); ok {
			items = l.Items
		}
		for j, e := range items {
			l := a.exprLin(e, ctx)
			markUsed(e, used)
			all = append(all, l.deps...)
			if j < k {
				valDeps[j] = append(valDeps[j], l.deps...)
			}
		}
	}
	rel := &relation{rowDeps: srcRel.rowDeps, rowDigest: srcRel.rowDigest, starFrom: srcRel.starFrom}
	for _, c := range srcRel.cols {
		if !used[strings.ToLower(c.name)] {
			rel.cols = append(rel.cols, c)
		}
	}
	rel.cols = append(rel.cols, rcol{name: u.NameCol, l: &lin{deps: dedupDeps(all), kind: KindDerived, digest: hashStr("unpivot-name")}})
	for j, v := range u.ValueCols {
		rel.cols = append(rel.cols, rcol{name: v, l: &lin{deps: dedupDeps(valDeps[j]), kind: KindDerived, digest: hashStr("unpivot-val" + strconv.Itoa(j))}})
	}
	rel = renameCols(rel, u.ColAliases)
	return &source{alias: u.Alias, rel: rel}
}
