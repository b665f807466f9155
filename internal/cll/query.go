// Resolver stage: queries — WITH clauses and CTEs (recursive too), set
// operations (by position or BY NAME), VALUES and query-level ORDER BY.

package cll

import (
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

func (a *analyzer) query(q *sqlparse.Query, env *cteEnv, outer *scope) *relation {
	a.depth++
	defer func() { a.depth-- }()
	if a.depth > 200 {
		a.opaque = append(a.opaque, "query nested too deeply")
		return &relation{}
	}
	if q.With != nil && len(q.With.CTEs) > 0 {
		a.st.HasCTE = true
		defs := a.cteDefs.Take(len(q.With.CTEs), resBlock)
		envs := a.cteEnvs.Take(len(q.With.CTEs), resBlock)
		for i, c := range q.With.CTEs {
			def := &defs[i]
			*def = cteDef{name: c.Name, cte: c, recursive: q.With.Recursive}
			ne := &envs[i]
			*ne = cteEnv{def: def, parent: env}
			// A non-recursive CTE cannot see itself: a CTE named like a
			// table reads the table.
			if q.With.Recursive {
				def.env = ne
			} else {
				def.env = env
			}
			if a.structure {
				a.st.CTENames = append(a.st.CTENames, c.Name)
			}
			env = ne
		}
	}
	if sel, ok := q.Body.(*sqlparse.Select); ok {
		return a.selectBlock(sel, env, outer, q.OrderBy)
	}
	rel := a.body(q.Body, env, outer)
	if len(q.OrderBy) > 0 {
		sc := &scope{parent: outer}
		sc.sources = []*source{{rel: rel}}
		sc.items = rel.cols
		var deps []dep
		parts := []uint64{rel.rowDigest}
		for _, o := range q.OrderBy {
			deps = append(deps, a.rowExprDeps(o.Expr, sc, rel.cols, true)...)
			parts = append(parts, a.digestExpr(o.Expr, sc))
			if a.structure {
				a.st.OrderBy = append(a.st.OrderBy, sqlparse.Format(o.Expr))
			}
		}
		out := *rel
		out.rowDeps = append(append([]dep(nil), rel.rowDeps...), deps...)
		out.rowDigest = hashDigests("order", parts...)
		return &out
	}
	return rel
}

func (a *analyzer) body(b sqlparse.QueryBody, env *cteEnv, outer *scope) *relation {
	switch x := b.(type) {
	case *sqlparse.Select:
		return a.selectBlock(x, env, outer, nil)
	case *sqlparse.Query:
		return a.query(x, env, outer)
	case *sqlparse.SetOp:
		return a.setOp(x, env, outer)
	case *sqlparse.Values:
		return a.values(x, nil)
	}
	return &relation{}
}

func (a *analyzer) values(v *sqlparse.Values, names []string) *relation {
	rel := &relation{}
	if len(v.Rows) == 0 {
		return rel
	}
	// The rows are the relation's data: a changed literal changes which
	// rows exist, so it is part of the row digest (a model built from an
	// inline VALUES list is otherwise "unchanged" to column lineage).
	parts := make([]uint64, 0, len(v.Rows)*(len(v.Rows[0])+1))
	for _, row := range v.Rows {
		for _, e := range row {
			parts = append(parts, hashStr(sqlparse.Format(e)))
		}
		parts = append(parts, hashStr("row"))
	}
	rel.rowDigest = hashDigests("values", parts...)
	n := len(v.Rows[0])
	for i := 0; i < n; i++ {
		name := "column" + strconv.Itoa(i+1)
		if i < len(names) {
			name = names[i]
		}
		rel.cols = append(rel.cols, rcol{name: name, l: &lin{kind: KindSource, digest: hashStr("values:" + name)}})
	}
	return rel
}

func (a *analyzer) setOp(s *sqlparse.SetOp, env *cteEnv, outer *scope) *relation {
	left := a.body(s.Left, env, outer)
	right := a.body(s.Right, env, outer)
	return a.mergeSet(s, left, right)
}

func mergeLin(ls ...*lin) *lin {
	out := &lin{}
	var ds []uint64
	for _, l := range ls {
		if l == nil {
			continue
		}
		out.deps = append(out.deps, l.deps...)
		ds = append(ds, l.digest)
	}
	out.deps = dedupDeps(out.deps)
	out.kind = KindDerived
	if len(out.deps) == 0 {
		out.kind = KindSource
	}
	out.digest = hashDigests("set", ds...)
	return out
}

func (a *analyzer) mergeSet(s *sqlparse.SetOp, left, right *relation) *relation {
	out := &relation{}
	if s.ByName {
		var names []string
		seen := map[string]bool{}
		for _, r := range []*relation{left, right} {
			for _, c := range r.cols {
				if !seen[strings.ToLower(c.name)] {
					seen[strings.ToLower(c.name)] = true
					names = append(names, c.name)
				}
			}
		}
		for _, n := range names {
			l1, _ := left.find(n)
			l2, _ := right.find(n)
			out.cols = append(out.cols, rcol{name: n, l: mergeLin(l1, l2)})
		}
	} else {
		for i, c := range left.cols {
			var r *lin
			if i < len(right.cols) {
				r = right.cols[i].l
			}
			out.cols = append(out.cols, rcol{name: c.name, l: mergeLin(c.l, r)})
		}
	}
	out.starFrom = append(append([]*relation(nil), left.starFrom...), right.starFrom...)
	if left.open {
		out.starFrom = append(out.starFrom, left)
	}
	out.rowDeps = append(append([]dep(nil), left.rowDeps...), right.rowDeps...)
	out.rowDigest = hashDigests(s.Op+strconv.FormatBool(s.All), left.rowDigest, right.rowDigest)
	return out
}

func (a *analyzer) cteRelation(def *cteDef, outer *scope) *relation {
	if def.rel != nil {
		return def.rel
	}
	if def.resolving {
		// Recursive reference before the anchor is known.
		return &relation{}
	}
	def.resolving = true
	defer func() { def.resolving = false }()
	q := def.cte.Query
	if def.recursive {
		if so, ok := q.Body.(*sqlparse.SetOp); ok && q.With == nil {
			anchor := a.body(so.Left, def.env, nil)
			def.rel = renameCols(anchor, def.cte.Columns)
			// Two rounds let the recursive branch see its own derived columns.
			for i := 0; i < 2; i++ {
				right := a.body(so.Right, def.env, nil)
				def.rel = renameCols(a.mergeSet(so, anchor, right), def.cte.Columns)
			}
			return def.rel
		}
	}
	rel := a.query(q, def.env, nil)
	def.rel = renameCols(rel, def.cte.Columns)
	return def.rel
}

func renameCols(r *relation, names []string) *relation {
	if len(names) == 0 {
		return r
	}
	out := *r
	out.cols = append([]rcol(nil), r.cols...)
	for i := range out.cols {
		if i < len(names) {
			out.cols[i].name = names[i]
			if l := out.cols[i].l; (l.kind == KindPassthrough || l.kind == KindRenamed) && l.orig != "" {
				cp := *l
				cp.kind = KindPassthrough
				if !equalFold(l.orig, names[i]) {
					cp.kind = KindRenamed
				}
				out.cols[i].l = &cp
			}
		}
	}
	for i := len(out.cols); i < len(names); i++ {
		out.cols = append(out.cols, rcol{name: names[i], l: &lin{kind: KindSource}})
	}
	return &out
}
