// Resolver stage: column names — qualified references against the sources
// of enclosing scopes, unqualified ones against USING columns, sources and
// lateral aliases, with a confidence when a guess was needed.

package cll

import (
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

func matchQualifier(srcs []*source, qual []string) *source {
	// Exact: alias, or the trailing parts of the table name.
	for _, s := range srcs {
		if len(qual) == 1 && s.alias != "" && equalFold(s.alias, qual[0]) {
			return s
		}
	}
	for _, s := range srcs {
		if s.alias != "" && len(qual) == 1 {
			continue
		}
		if len(s.name) >= len(qual) && suffixEqual(s.name, qual) {
			return s
		}
	}
	// Loose: a fully qualified reference to an aliased table, or a
	// database name that differs (dbt.schema.t vs db.schema.t).
	for _, s := range srcs {
		if len(s.name) > 0 && equalFold(s.name[len(s.name)-1], qual[len(qual)-1]) {
			return s
		}
	}
	return nil
}

func suffixEqual(name, qual []string) bool {
	off := len(name) - len(qual)
	for i := range qual {
		if !equalFold(name[off+i], qual[i]) {
			return false
		}
	}
	return true
}

// resolveName resolves a column reference to lineage.
func (a *analyzer) resolveName(c *sqlparse.ColumnRef, ctx *exprCtx) (*lin, bool) {
	parts := c.Name.Parts
	if ctx.lambda != nil && ctx.lambda[strings.ToLower(parts[0])] {
		return nil, true
	}
	// Qualified: find the longest qualifier that names a source in any
	// enclosing scope.
	for k := len(parts) - 1; k >= 1; k-- {
		qual := parts[:k]
		for sc := ctx.sc; sc != nil; sc = sc.parent {
			s := matchQualifier(sc.sources, qual)
			if s == nil {
				continue
			}
			if l, ok := s.rel.find(parts[k]); ok {
				return fieldAccess(l, k+1 < len(parts)), true
			}
			if l, conf, ok := s.rel.lookupWeak(parts[k]); ok {
				return fieldAccess(withConf(l, conf), k+1 < len(parts)), true
			}
			// The qualifier names a source but the column is not in its
			// known schema: keep the edge, flagged.
			if s.rel.physical {
				return &lin{deps: []dep{{table: s.rel.name, col: parts[k], conf: Unknown}}, kind: KindPassthrough, orig: parts[k], digest: a.colDigest(s.rel.name, parts[k])}, true
			}
			a.unresolved = append(a.unresolved, c.Name.String())
			return &lin{kind: KindSource, digest: hashStr("unresolved:" + c.Name.String())}, true
		}
	}
	// Unqualified (or a struct field access on a column: a.b.c where a is
	// a column).
	l, ok := a.resolveUnqualified(parts[0], ctx, c)
	return fieldAccess(l, len(parts) > 1), ok
}

// fieldAccess marks a struct field read: it depends on the column but is
// not a copy of it.
func fieldAccess(l *lin, field bool) *lin {
	if !field || l == nil || l.kind != KindPassthrough && l.kind != KindRenamed {
		return l
	}
	out := *l
	out.kind = KindDerived
	out.orig = ""
	return &out
}

func withConf(l *lin, conf Confidence) *lin {
	if conf == Exact || conf == "" {
		return l
	}
	out := *l
	out.deps = make([]dep, len(l.deps))
	for i, d := range l.deps {
		d.conf = worse(d.conf, conf)
		out.deps[i] = d
	}
	return &out
}

func worse(a, b Confidence) Confidence {
	rank := map[Confidence]int{Exact: 0, Inferred: 1, Unknown: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// mayHave reports whether a source of unknown columns that an unqualified
// name can reach does not list name but may have it.
func mayHave(srcs []*source, name string) bool {
	for _, s := range srcs {
		if s.qualifiedOnly || s.rel.isKnown() {
			continue
		}
		if _, ok := s.rel.find(name); !ok {
			return true
		}
	}
	return false
}

func (a *analyzer) resolveUnqualified(name string, ctx *exprCtx, c *sqlparse.ColumnRef) (*lin, bool) {
	if len(c.Name.Parts) == 1 && !c.Name.IsQuoted(0) && inUpper(niladic, name) && !a.strongColumn(name, ctx) {
		return &lin{kind: KindSource, digest: hashStr(strings.ToUpper(name))}, true
	}
	findAlias := func() (*lin, bool) {
		for i := len(ctx.aliases) - 1; i >= 0; i-- {
			if equalFold(ctx.aliases[i].name, name) {
				return ctx.aliases[i].l, true
			}
		}
		return nil, false
	}
	if ctx.aliasFirst {
		if l, ok := findAlias(); ok {
			return l, true
		}
	}
	for sc := ctx.sc; sc != nil; sc = sc.parent {
		if sc.using != nil {
			if l, ok := sc.using[strings.ToLower(name)]; ok {
				return l, true
			}
		}
		var strong []*lin
		for _, s := range sc.sources {
			if l, ok := s.rel.find(name); ok {
				strong = append(strong, l)
			}
		}
		// Several sources with the column: the engines' rule is the first
		// in FROM order, a guess about what the author meant. So is one
		// when another source's columns are unknown and may include it.
		if len(strong) == 1 && !mayHave(sc.sources, name) {
			return strong[0], true
		}
		if len(strong) > 0 {
			return withConf(strong[0], Inferred), true
		}
		if sc == ctx.sc {
			if l, ok := findAlias(); ok {
				return l, true
			}
		}
		if s := rowSource(sc.sources, name); s != nil && len(c.Name.Parts) == 1 {
			return a.rowOf([]*source{s}), true
		}
		var weak []*lin
		var weakConf []Confidence
		for _, s := range sc.sources {
			if s.qualifiedOnly {
				continue
			}
			if l, conf, ok := s.rel.lookupWeak(name); ok {
				weak = append(weak, l)
				weakConf = append(weakConf, conf)
			}
		}
		if len(weak) == 1 {
			conf := weakConf[0]
			if len(sc.sources) > 1 && conf == Exact {
				// Other sources have known columns without this name, so
				// the open source is the only candidate; still a guess.
				conf = Inferred
			}
			return withConf(weak[0], conf), true
		}
		if len(weak) > 1 {
			// No schema decides: take the first FROM item, as dbt users
			// usually qualify columns of joined tables.
			return withConf(weak[0], Inferred), true
		}
	}
	// Not found anywhere. With a single physical source, the schema we were
	// given is probably incomplete.
	if len(c.Name.Parts) == 1 && !c.Name.IsQuoted(0) && sqlparse.IsDatePart(strings.ToUpper(name)) {
		// A date part keyword (DAY, MONTH...) in a position we did not
		// recognise as one, e.g. while digesting.
		return &lin{kind: KindSource, digest: hashStr(strings.ToUpper(name))}, true
	}
	if len(ctx.sc.sources) == 1 && ctx.sc.sources[0].rel.physical {
		r := ctx.sc.sources[0].rel
		return &lin{deps: []dep{{table: r.name, col: name, conf: Unknown}}, kind: KindPassthrough, orig: name, digest: a.colDigest(r.name, name)}, true
	}
	if len(c.Name.Parts) == 1 && !c.Name.IsQuoted(0) && a.d.IsPseudoColumn(name) {
		// Snowflake's METADATA$FILENAME & co. belong to the staged file,
		// external table or stream read; no catalog lists them, so with
		// several relations in scope the engine's owner is the one of
		// that kind, which only the warehouse knows: take the first
		// physical relation in FROM order (as for a name no schema
		// decides), with unknown confidence.
		for sc := ctx.sc; sc != nil; sc = sc.parent {
			for _, s := range sc.sources {
				if s.rel.physical {
					return &lin{deps: []dep{{table: s.rel.name, col: name, conf: Unknown}}, kind: KindPassthrough, orig: name, digest: a.colDigest(s.rel.name, name)}, true
				}
			}
		}
		return &lin{kind: KindSource, digest: hashStr(strings.ToUpper(name))}, true
	}
	a.unresolved = append(a.unresolved, c.Name.String())
	return &lin{kind: KindSource, digest: hashStr("unresolved:" + c.Name.String())}, true
}
