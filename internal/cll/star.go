// Resolver stage: star expansion — *, t.*, EXCLUDE/EXCEPT, REPLACE, RENAME,
// ILIKE and COLUMNS(...) — against the known columns of each source.

package cll

import (
	"regexp"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

func (a *analyzer) expandStar(st *sqlparse.Star, sc *scope, env *cteEnv, out *relation) []rcol {
	// Fast path: a plain * over one fully known source, the shape of most
	// dbt import CTEs, shares the source's columns.
	if len(st.Qualifier) == 0 && len(st.Exclude) == 0 && len(st.Replace) == 0 && len(st.Rename) == 0 && !st.HasILike && !st.Columns &&
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
	var re *regexp.Regexp
	if st.Columns && st.Regex != "" {
		var err error
		re, err = regexp.Compile(st.Regex)
		if err != nil {
			a.opaque = append(a.opaque, "invalid COLUMNS regular expression")
		}
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
			if s.usingOf[key] && sc.using[key] != nil {
				if seenUsing[key] && len(st.Qualifier) == 0 {
					continue
				}
				if seenUsing == nil {
					seenUsing = map[string]bool{}
				}
				seenUsing[key] = true
				cols = append(cols, rcol{name: c.name, l: sc.using[key]})
				continue
			}
			cols = append(cols, c)
		}
		if s.rel.open {
			unknown = append(unknown, s.rel)
		}
		unknown = append(unknown, s.rel.starFrom...)
		if s.rel.anyCol != nil && len(s.rel.cols) == 0 {
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
		if re != nil && !re.MatchString(c.name) {
			continue
		}
		l := c.l
		if l.kind == KindRenamed && equalFold(l.orig, c.name) {
			cp := *l
			cp.kind = KindPassthrough
			l = &cp
		} else if l.kind == KindPassthrough && !equalFold(l.orig, c.name) {
			cp := *l
			cp.kind = KindRenamed
			l = &cp
		}
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

// likeMatch is a case-insensitive SQL LIKE ('%' and '_').
func likeMatch(pat, s string) bool {
	p := []rune(strings.ToLower(pat))
	t := []rune(strings.ToLower(s))
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
