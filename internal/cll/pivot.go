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
			rel.anyCol = s.rel.anyCol
		}
	}
	return sub, rel
}

func (a *analyzer) pivot(p *sqlparse.Pivot, sc *scope, env *cteEnv) *source {
	sub, srcRel := a.subSource(p.Source, sc, env)
	ctx := &exprCtx{sc: sub}
	var aggDeps, forDeps []dep
	used := map[string]bool{}
	var dig []uint64
	for _, it := range p.Aggs {
		l := a.exprLin(it.Expr, ctx)
		aggDeps = append(aggDeps, l.deps...)
		dig = append(dig, l.digest)
		markUsed(it.Expr, used)
	}
	for _, e := range p.For {
		l := a.exprLin(e, ctx)
		forDeps = append(forDeps, l.deps...)
		dig = append(dig, l.digest)
		markUsed(e, used)
	}
	rel := &relation{rowDeps: append(append(append([]dep(nil), srcRel.rowDeps...), aggDeps...), forDeps...)}
	rel.rowDigest = hashDigests("pivot", append(dig, srcRel.rowDigest)...)
	for _, c := range srcRel.cols {
		if !used[strings.ToLower(c.name)] {
			rel.cols = append(rel.cols, c)
		}
	}
	rel.starFrom = srcRel.starFrom
	vl := &lin{deps: dedupDeps(append(append([]dep(nil), aggDeps...), forDeps...)), kind: KindDerived, digest: hashDigests("pv", dig...)}
	for _, in := range p.In {
		base := in.Alias
		if base == "" {
			if lit, ok := in.Expr.(*sqlparse.Literal); ok {
				base = lit.Value
			} else {
				base = a.exprName(in.Expr)
			}
		}
		if len(p.Aggs) == 1 || true {
			if len(p.Aggs) > 1 {
				for _, ag := range p.Aggs {
					n := base
					if ag.Alias != "" {
						n = base + "_" + ag.Alias
					}
					rel.cols = append(rel.cols, rcol{name: n, l: vl})
				}
				continue
			}
			rel.cols = append(rel.cols, rcol{name: base, l: vl})
		}
	}
	rel = renameCols(rel, p.ColAliases)
	return &source{alias: p.Alias, rel: rel}
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
