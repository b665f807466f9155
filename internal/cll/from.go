// Resolver stage: FROM items — tables, CTE references, derived tables,
// joins (ON, USING, NATURAL) and table functions (UNNEST, FLATTEN, readers).

package cll

import (
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

func (a *analyzer) addSource(sc *scope, src *source, out *relation, rowParts *[]uint64) {
	sc.sources = append(sc.sources, src)
	out.rowDeps = a.appendDeps(out.rowDeps, src.rel.rowDeps)
	if src.rel.rowDigest != 0 {
		*rowParts = append(*rowParts, hashDigests("src", src.rel.rowDigest))
	}
}

func (a *analyzer) addTable(te sqlparse.TableExpr, sc *scope, env *cteEnv, out *relation, rowParts *[]uint64) {
	switch x := te.(type) {
	case *sqlparse.Join:
		// This join's sides are the sources it adds: a join nested on the
		// right ((c JOIN d) after a, b) does not see the sources before it.
		start := len(sc.sources)
		a.addTable(x.Left, sc, env, out, rowParts)
		before := len(sc.sources)
		a.addTable(x.Right, sc, env, out, rowParts)
		right := sc.sources[before:]
		left := sc.sources[start:before]
		jt := x.Type
		if x.Natural {
			jt = "NATURAL " + jt
		}
		*rowParts = append(*rowParts, hashStr("join:"+jt))
		info := JoinInfo{JoinType: jt}
		if len(right) > 0 {
			info.Table = right[0].display()
		}
		using := x.Using
		if x.Natural {
			using = commonColumns(left, right)
		}
		if x.On != nil {
			out.rowDeps = a.appendDeps(out.rowDeps, a.rowExprDeps(x.On, sc, nil, false))
			*rowParts = append(*rowParts, hashDigests("on", a.digestExpr(x.On, sc)))
			if a.structure {
				info.Condition = sqlparse.Format(x.On)
			}
		}
		filtering := x.Type == "SEMI" || x.Type == "ANTI"
		if len(using) > 0 {
			a.joinUsing(sc, left, right, using, filtering, out, rowParts)
			info.Condition = "USING (" + strings.Join(using, ", ") + ")"
		}
		a.st.Joins = append(a.st.Joins, info)
		if filtering {
			// A SEMI or ANTI join only filters the left side: the right
			// side's columns are not part of the result (SELECT * expands
			// to the left side) and cannot be named after the join; its
			// keys stay row deps.
			sc.sources = sc.sources[:before]
		}
	case *sqlparse.ParenTable:
		a.addTable(x.Inner, sc, env, out, rowParts)
	case *sqlparse.TableRef:
		a.addSource(sc, a.tableRef(x, env), out, rowParts)
	case *sqlparse.DerivedTable:
		a.st.HasSubquery = true
		var lat *scope
		if x.Lateral {
			lat = sc
		} else {
			lat = sc.parent
		}
		rel := renameCols(a.query(x.Query, env, lat), x.ColAliases)
		a.addSource(sc, &source{alias: x.Alias, rel: rel}, out, rowParts)
	case *sqlparse.TableFunc:
		a.addSource(sc, a.tableFunc(x, sc), out, rowParts)
	case *sqlparse.ValuesTable:
		a.addSource(sc, &source{alias: x.Alias, rel: a.values(x.Values, x.ColAliases)}, out, rowParts)
	case *sqlparse.Pivot:
		a.addSource(sc, a.pivot(x, sc, env), out, rowParts)
	case *sqlparse.Unpivot:
		a.addSource(sc, a.unpivot(x, sc, env), out, rowParts)
	}
}

// joinUsing merges each USING (or NATURAL) column of a join. The merged
// column stands for the COALESCE of the key of every table joined through
// it: a side that already merged the column in an earlier join of a chain
// (a JOIN b USING (k) JOIN c USING (k)) brings that merge, not only its
// first table's key. The keys of both sides are row deps. A filtering join
// (SEMI, ANTI) merges nothing: the result keeps the left side's column.
func (a *analyzer) joinUsing(sc *scope, left, right []*source, using []string, filtering bool, out *relation, rowParts *[]uint64) {
	if sc.using == nil && !filtering {
		sc.using = map[string]*lin{}
	}
	for _, u := range using {
		key := strings.ToLower(u)
		var ls []*lin
		for _, side := range [2][]*source{left, right} {
			if l := usingSide(side, key, u); l != nil {
				ls = append(ls, l)
			}
		}
		for _, l := range ls {
			out.rowDeps = a.appendDeps(out.rowDeps, l.deps)
		}
		if filtering {
			continue
		}
		m := mergeLin(ls...)
		m.kind = KindPassthrough
		m.orig = u
		if len(ls) > 0 && ls[0].orig != "" {
			m.orig = ls[0].orig
		}
		sc.using[key] = m
		for _, side := range [2][]*source{left, right} {
			for _, s := range side {
				if s.usingOf == nil {
					s.usingOf = map[string]*lin{}
				}
				s.usingOf[key] = m
			}
		}
		*rowParts = append(*rowParts, hashDigests("using", m.digest))
	}
}

// usingSide is the lineage of USING column u (lower-cased key) on one side
// of a join: the column merged by an earlier join on that side, else the
// first of its tables that has the column.
func usingSide(side []*source, key, u string) *lin {
	for _, s := range side {
		if m := s.usingOf[key]; m != nil {
			return m
		}
	}
	for _, s := range side {
		if l, ok := s.rel.find(u); ok {
			return l
		}
		if l, _, ok := s.rel.lookupWeak(u); ok {
			return l
		}
	}
	return nil
}

func (s *source) display() string {
	if len(s.name) > 0 {
		return strings.Join(s.name, ".")
	}
	return s.alias
}

func commonColumns(left, right []*source) []string {
	var out []string
	for _, r := range right {
		for _, c := range r.rel.cols {
			for _, l := range left {
				if _, ok := l.rel.find(c.name); ok {
					out = append(out, c.name)
					break
				}
			}
		}
	}
	return out
}

func (a *analyzer) tableRef(t *sqlparse.TableRef, env *cteEnv) *source {
	if len(t.Name.Parts) == 1 {
		if def := env.lookup(t.Name.Parts[0]); def != nil {
			rel := a.cteRelation(def, nil)
			rel = renameCols(rel, t.ColAliases)
			return a.newSource(source{alias: t.Alias, name: t.Name.Parts, rel: rel})
		}
	}
	name := t.Name.String()
	if a.seeTable(strings.ToLower(name)) {
		a.tables = append(a.tables, name)
		a.st.Refs = append(a.st.Refs, name)
	}
	rel := a.newRel()
	rel.name, rel.physical, rel.dig = name, true, a
	if cols, ok := a.lookupSchema(name); ok && len(cols) > 0 {
		// One allocation each for all columns' lineage and deps.
		lins := a.linBuf.Take(len(cols), 512)
		deps := a.depBuf.Take(len(cols), 512)
		rel.cols = a.rcolBuf.Take(len(cols), 512)
		prefix := a.tableDigestPrefix(name)
		for i, c := range cols {
			fc := a.foldCol(c)
			deps[i] = dep{table: name, col: fc, conf: Exact}
			lins[i] = lin{deps: deps[i : i+1 : i+1], kind: KindPassthrough, orig: fc, digest: colDigestFrom(prefix, fc)}
			rel.cols[i] = rcol{name: fc, l: &lins[i]}
		}
	} else {
		rel.open = true
	}
	rel = renameCols(rel, t.ColAliases)
	return a.newSource(source{alias: t.Alias, name: t.Name.Parts, rel: rel})
}

func (a *analyzer) tableFunc(t *sqlparse.TableFunc, sc *scope) *source {
	f := t.Func
	// TABLE(FLATTEN(...)) and TABLE(x) wrap the real function.
	for strings.EqualFold(f.Name.Last(), "TABLE") && len(f.Args) == 1 {
		inner, ok := f.Args[0].(*sqlparse.Func)
		if !ok {
			break
		}
		f = inner
	}
	fname := strings.ToUpper(f.Name.Last())
	rel := &relation{}
	if !elementFuncs[fname] {
		// A reader like read_csv(...) or a UDTF: treat it as a relation
		// with unknown columns, named by the call, so that explicit
		// columns still trace to it. A star over it makes the query opaque.
		name := strings.ToLower(f.Name.String()) + "(" + strings.ToLower(formatArgs(f)) + ")"
		rel.name, rel.physical, rel.open, rel.dig = name, true, true, a
		if a.seeTable(name) {
			a.tables = append(a.tables, name)
		}
		if len(t.ColAliases) > 0 {
			for _, c := range t.ColAliases {
				rel.cols = append(rel.cols, rcol{name: c, l: &lin{deps: []dep{{table: name, col: c, conf: Exact}}, kind: KindPassthrough, orig: c, digest: a.colDigest(name, c)}})
			}
			rel.open = false
		}
		return &source{alias: t.Alias, name: []string{strings.ToLower(f.Name.Last())}, rel: rel}
	}
	ctx := &exprCtx{sc: sc}
	var deps []dep
	var parts []uint64
	for _, arg := range f.Args {
		if n, ok := arg.(*sqlparse.Named); ok && !strings.EqualFold(n.Name, "INPUT") {
			continue
		}
		l := a.exprLin(arg, ctx)
		deps = append(deps, l.deps...)
		parts = append(parts, l.digest)
	}
	el := &lin{deps: dedupDeps(deps), kind: KindDerived, digest: hashDigests(fname, parts...)}
	if len(el.deps) == 0 {
		el.kind = KindSource
	}
	rel.anyCol = el
	var names []string
	switch {
	case len(t.ColAliases) > 0:
		names = t.ColAliases
	case fname == "FLATTEN":
		names = []string{"SEQ", "KEY", "PATH", "INDEX", "VALUE", "THIS"}
	case t.Alias != "":
		names = []string{t.Alias}
	default:
		names = []string{strings.ToLower(fname)}
	}
	for _, n := range names {
		rel.cols = append(rel.cols, rcol{name: n, l: el})
	}
	if t.WithOffset {
		on := t.OffsetAlias
		if on == "" {
			on = "offset"
		}
		rel.cols = append(rel.cols, rcol{name: on, l: &lin{kind: KindSource, digest: hashStr("offset")}})
	}
	return &source{alias: t.Alias, rel: rel, qualifiedOnly: t.Alias != "" || len(t.ColAliases) > 0}
}

func formatArgs(f *sqlparse.Func) string {
	parts := make([]string, 0, len(f.Args))
	for _, a := range f.Args {
		if l, ok := a.(*sqlparse.Literal); ok && l.Kind == "string" {
			parts = append(parts, "'"+l.Value+"'")
			continue
		}
		parts = append(parts, sqlparse.Format(a))
	}
	return strings.Join(parts, ", ")
}
