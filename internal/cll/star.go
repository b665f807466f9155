// Resolver stage: star expansion — *, t.*, EXCLUDE/EXCEPT, REPLACE, RENAME
// and ILIKE — against the known columns of each source, and
// whole rows used as values (HASH(*), TO_JSON(t), t.* as an argument).

package cll

import (
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

func (a *analyzer) expandStar(st *sqlparse.Star, sc *scope, env *cteEnv, out *relation) []rcol {
	// Fast path: a plain * over one fully known source, the shape of most
	// dbt import CTEs, shares the source's columns.
	if len(st.Qualifier) == 0 && len(st.Exclude) == 0 && len(st.Replace) == 0 && len(st.Rename) == 0 && !st.HasILike &&
		len(sc.sources) == 1 && sc.sources[0].rel.isKnown() && sc.using == nil {
		return sc.sources[0].rel.cols
	}
	var srcs []*source
	if len(st.Qualifier) > 0 {
		if s := matchQualifier(sc.sources, st.Qualifier); s != nil {
			srcs = []*source{s}
		} else {
			a.unresolved = append(a.unresolved, strings.Join(st.Qualifier, ".")+".*")
			return nil
		}
	} else {
		srcs = sc.sources
	}
	var excluded map[string]bool
	if len(st.Exclude) > 0 {
		excluded = map[string]bool{}
		for _, e := range st.Exclude {
			excluded[strings.ToLower(e)] = true
		}
	}
	n := 0
	for _, s := range srcs {
		n += len(s.rel.cols)
	}
	cols := a.rcolBuf.Take(n, 512)[:0]
	seenUsing := map[string]bool(nil)
	var unknown []*relation
	for _, s := range srcs {
		for _, c := range s.rel.cols {
			key := c.name
			if s.usingOf != nil {
				key = strings.ToLower(c.name)
			}
			// A star lists a USING column merged, and an unqualified one
			// lists it once.
			if m := s.usingOf[key]; m != nil {
				if seenUsing[key] && len(st.Qualifier) == 0 {
					continue
				}
				if seenUsing == nil {
					seenUsing = map[string]bool{}
				}
				seenUsing[key] = true
				cols = append(cols, rcol{name: c.name, l: m})
				continue
			}
			cols = append(cols, c)
		}
		if s.rel.open {
			unknown = append(unknown, s.rel)
		}
		unknown = append(unknown, s.rel.starFrom...)
		if s.rel.anyCol != nil && (len(s.rel.cols) == 0 || s.rel.moreCols) {
			unknown = append(unknown, s.rel)
		}
	}
	// Filter in place: each write index trails its read index.
	res := cols[:0]
	for _, c := range cols {
		if excluded != nil && excluded[strings.ToLower(c.name)] {
			continue
		}
		if st.HasILike && !likeMatch(st.ILike, c.name) {
			continue
		}
		l := asNamed(c.l, c.name)
		name := c.name
		for _, rn := range st.Rename {
			if equalFold(rn[0], c.name) {
				name = rn[1]
				if l.kind == KindPassthrough {
					cp := *l
					cp.kind = KindRenamed
					l = &cp
				}
			}
		}
		for _, rp := range st.Replace {
			if equalFold(rp.Alias, c.name) {
				ctx := &exprCtx{sc: sc}
				l = classify(rp.Expr, a.exprLin(rp.Expr, ctx), name)
			}
		}
		res = append(res, rcol{name: name, l: l})
	}
	if len(unknown) > 0 {
		out.starFrom = append(out.starFrom, unknown...)
		var deps []dep
		for _, u := range unknown {
			deps = append(deps, starDeps(u)...)
		}
		if len(deps) > 0 {
			res = append(res, rcol{name: "*", l: &lin{deps: dedupDeps(deps), kind: KindPassthrough, orig: "*", digest: hashStr("star")}})
		}
	}
	return res
}

func starDeps(r *relation) []dep {
	var out []dep
	if r.open {
		out = append(out, dep{table: r.name, col: "*", conf: Exact})
	}
	if r.anyCol != nil {
		out = append(out, r.anyCol.deps...)
	}
	for _, s := range r.starFrom {
		out = append(out, starDeps(s)...)
	}
	return out
}

// asNamed is column lineage l listed under name: a copy of an upstream
// column is passthrough under its own name and renamed under another.
func asNamed(l *lin, name string) *lin {
	if l.kind == KindRenamed && equalFold(l.orig, name) {
		cp := *l
		cp.kind = KindPassthrough
		return &cp
	}
	if l.kind == KindPassthrough && !equalFold(l.orig, name) {
		cp := *l
		cp.kind = KindRenamed
		return &cp
	}
	return l
}

// likeMatch is a case-insensitive SQL LIKE ('%' and '_').
func likeMatch(pat, s string) bool { return like(pat, s, true) }

// like is SQL LIKE, case-insensitive when fold is set.
func like(pat, s string, fold bool) bool {
	if fold {
		pat, s = strings.ToLower(pat), strings.ToLower(s)
	}
	p := []rune(pat)
	t := []rune(s)
	var m func(i, j int) bool
	memo := map[[2]int]bool{}
	m = func(i, j int) bool {
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		var r bool
		switch {
		case i == len(p):
			r = j == len(t)
		case p[i] == '%':
			r = m(i+1, j) || j < len(t) && m(i, j+1)
		case j < len(t) && (p[i] == '_' || p[i] == t[j]):
			r = m(i+1, j+1)
		}
		memo[[2]int{i, j}] = r
		return r
	}
	return m(0, 0)
}

// wholeRow is the lineage of a whole row used as a value (t.* or * as a
// function argument): every column of the sources the qualifier names (all
// sources of the scope without one), t.* for a relation whose columns are
// unknown.
func (a *analyzer) wholeRow(ctx *exprCtx, qual []string) *lin {
	if len(qual) == 0 {
		if ctx.sc == nil {
			return a.rowOf(nil)
		}
		return a.rowOf(ctx.sc.sources)
	}
	for sc := ctx.sc; sc != nil; sc = sc.parent {
		if s := matchQualifier(sc.sources, qual); s != nil {
			return a.rowOf([]*source{s})
		}
	}
	a.unresolved = append(a.unresolved, strings.Join(qual, ".")+".*")
	return a.rowOf(nil)
}

// rowOf is the lineage of the rows of srcs taken as one value.
func (a *analyzer) rowOf(srcs []*source) *lin {
	ac := &acc{mem: a.resMem}
	var parts []uint64
	for _, s := range srcs {
		for _, c := range s.rel.cols {
			ac.add(c.l)
			parts = append(parts, c.l.digest)
		}
		if deps := starDeps(s.rel); len(deps) > 0 {
			ac.add(&lin{deps: deps})
			parts = append(parts, hashStr("row:"+strings.ToLower(s.display())))
		}
	}
	out := a.newLin(lin{deps: dedupDepsIn(ac.deps, a.resMem), kind: KindDerived, digest: hashDigests("row", parts...)})
	if len(out.deps) == 0 {
		out.kind = KindSource
	}
	return out
}

// rowSource is the source an unqualified name denotes as a whole row
// (to_json(o) in FROM orders o; BigQuery SELECT t FROM t): one whose alias
// is the name, or a relation of known columns named so. A relation of
// unknown columns may have a column of that name, which wins.
func rowSource(srcs []*source, name string) *source {
	for _, s := range srcs {
		if s.alias != "" {
			if equalFold(s.alias, name) {
				return s
			}
			continue
		}
		if len(s.name) > 0 && equalFold(s.name[len(s.name)-1], name) && s.rel.isKnown() {
			return s
		}
	}
	return nil
}
