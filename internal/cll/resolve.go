package cll

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"

	"github.com/ripple-data/ripple/internal/slab"
)

// equalFold is strings.EqualFold with a fast path for ASCII, the common
// case of identifiers.
func equalFold(a, b string) bool {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x|y >= 0x80 {
			// Only non-ASCII folding (e.g. the Kelvin sign) can match
			// strings of different lengths; the prefix so far matched.
			return strings.EqualFold(a[i:], b[i:])
		}
		if x == y {
			continue
		}
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	// An ASCII prefix of the other string: the rest cannot fold to
	// nothing.
	return len(a) == len(b)
}

// dep is a physical column reached by lineage.
type dep struct {
	table, col string
	conf       Confidence
}

// lin is the lineage of one column of a relation.
type lin struct {
	deps []dep
	kind Kind
	// orig is the physical column name when kind is passthrough/renamed,
	// so that a later alias can be classified as a rename.
	orig   string
	digest uint64
}

// relation is a resolved FROM item or query result.
type relation struct {
	name     string // display name of a physical relation
	physical bool
	cols     []rcol
	// open relations are physical tables without a schema: any column
	// name is accepted as written.
	open bool
	// anyCol answers every name (table functions like UNNEST/FLATTEN,
	// whose element fields are not known).
	anyCol *lin
	// starFrom lists open relations whose columns flow through an
	// unexpanded star, so that outer queries can still name them.
	starFrom  []*relation
	rowDeps   []dep
	rowDigest uint64
	// dig, when set, digests the columns of an open relation.
	dig *analyzer
}

type rcol struct {
	name string
	l    *lin
}

func (r *relation) find(name string) (*lin, bool) {
	for i := range r.cols {
		if equalFold(r.cols[i].name, name) {
			return r.cols[i].l, true
		}
	}
	return nil, false
}

// lookupWeak resolves a name the relation does not list explicitly.
func (r *relation) lookupWeak(name string) (*lin, Confidence, bool) {
	if r.anyCol != nil {
		return r.anyCol, Exact, true
	}
	if r.open {
		d := hashStr("col:" + strings.ToLower(r.name+"."+name))
		if r.dig != nil {
			d = r.dig.colDigest(r.name, name)
		}
		return &lin{deps: []dep{{table: r.name, col: name, conf: Exact}}, kind: KindPassthrough, orig: name, digest: d}, Exact, true
	}
	for _, s := range r.starFrom {
		if l, c, ok := s.lookupWeak(name); ok {
			if len(r.starFrom) > 1 {
				c = Inferred
			}
			return l, c, true
		}
	}
	return nil, "", false
}

func (r *relation) isKnown() bool { return !r.open && r.anyCol == nil && len(r.starFrom) == 0 }

// source is a relation in a FROM scope.
type source struct {
	// qualifiedOnly sources (aliased UNNEST/FLATTEN) answer unknown names
	// only when qualified: an unqualified name is not an element field.
	qualifiedOnly bool
	alias         string
	name          []string // table name parts for physical/CTE refs
	rel           *relation
	usingOf       map[string]bool
}

type scope struct {
	sources []*source
	parent  *scope
	// using maps an unqualified USING/NATURAL column to its merged lineage.
	using map[string]*lin
	// items are the select list resolved so far (lateral aliases).
	items   []rcol
	windows map[string]*sqlparse.WindowSpec
	env     *cteEnv
}

type cteDef struct {
	name      string
	cte       *sqlparse.CTE
	env       *cteEnv
	recursive bool
	rel       *relation
	resolving bool
}

// cteEnv is a linked list of visible CTEs, innermost first; queries have
// few CTEs, so a list beats a map per scope.
type cteEnv struct {
	def    *cteDef
	parent *cteEnv
}

func (e *cteEnv) lookup(name string) *cteDef {
	for ; e != nil; e = e.parent {
		if equalFold(e.def.name, name) {
			return e.def
		}
	}
	return nil
}

// acc accumulates the lineage an expression walk reports.
type acc struct {
	deps   []dep
	single *lin
	n      int
	mem    *resMem
}

// appendDeps is append(dst, src...) growing into the slab; dst's spare
// capacity must be its own (slabs and acc hand out capped slices).
func (m *resMem) appendRcols(dst []rcol, src ...rcol) []rcol {
	if len(dst)+len(src) <= cap(dst) {
		return append(dst, src...)
	}
	nd := m.rcolBuf.Take(max(2*cap(dst), len(dst)+len(src), 4), 512)[:0]
	nd = append(nd, dst...)
	return append(nd, src...)
}

func (m *resMem) appendDeps(dst, src []dep) []dep {
	if len(dst)+len(src) <= cap(dst) {
		return append(dst, src...)
	}
	nd := m.depBuf.Take(max(2*cap(dst), len(dst)+len(src), 4), 512)[:0]
	nd = append(nd, dst...)
	return append(nd, src...)
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

// analyzer holds per-query state.
type analyzer struct {
	d          sqlparse.Dialect
	schema     map[string][]string // lower-cased key -> columns
	schemaKeys []string
	// schemaList replaces schema and schemaKeys when set: the few
	// upstream relations of a project model (unique, normalised keys).
	schemaList []schemaEntry
	tables     []string
	// tableKeys are the lower-cased tables, to skip repeats.
	tableKeys  []string
	unresolved []string
	opaque     []string
	st         *ModelStructure
	depth      int
	// structure enables the text parts of ModelStructure; project analysis
	// skips them and rebuilds the structure on demand.
	structure bool
	// canon names a physical relation in digests. Project analysis maps
	// relations to node ids so that digests survive a change of target
	// schema between builds.
	canon func(table string) string
	// fw is the digest writer of digestCtx (a field so that passing it as
	// a sqlparse.Writer does not allocate).
	fw fnvWriter
	*resMem
}

// resMem holds slabs for the most frequent resolution objects. Nothing a
// caller keeps points into it: results copy what they need. A worker
// resets it between analyses.
type resMem struct {
	lins    slab.Slab[lin]
	sources slab.Slab[source]
	rels    slab.Slab[relation]
	scopes  slab.Slab[scope]
	linBuf  slab.Slab[lin]
	depBuf  slab.Slab[dep]
	rcolBuf slab.Slab[rcol]
	u64Buf  slab.Slab[uint64]
	srcBuf  slab.Slab[*source]
	strBuf  slab.Slab[string]
	// depLists holds per-column dep lists while results are built.
	depLists slab.Slab[[]dep]
	// cteDefs and cteEnvs hold the WITH clauses' definitions and scopes.
	cteDefs slab.Slab[cteDef]
	cteEnvs slab.Slab[cteEnv]
	// memo remembers the resolution of each column reference of the
	// expression being analysed, so digesting does not resolve it again.
	memo []refLin
}

// resBlock bounds the chunk size of resolution slabs.
const resBlock = 256

func (m *resMem) reset() {
	m.lins.Reset()
	m.sources.Reset()
	m.rels.Reset()
	m.scopes.Reset()
	m.linBuf.Reset()
	m.depBuf.Reset()
	m.rcolBuf.Reset()
	m.u64Buf.Reset()
	m.srcBuf.Reset()
	m.strBuf.Reset()
	m.depLists.Reset()
	m.cteDefs.Reset()
	m.cteEnvs.Reset()
	clear(m.memo)
	m.memo = m.memo[:0]
}

func (a *analyzer) newLin(l lin) *lin {
	p := a.lins.Alloc(resBlock)
	*p = l
	return p
}

func (a *analyzer) newSource(s source) *source {
	p := a.sources.Alloc(resBlock)
	*p = s
	return p
}

func (a *analyzer) newRel() *relation { return a.rels.Alloc(resBlock) }

func (a *analyzer) colDigest(table, col string) uint64 {
	w := a.tableDigestPrefix(table)
	return colDigestFrom(w, col)
}

// tableDigestPrefix is the digest state of "col:<table>.", shared by all
// columns of a relation.
func (a *analyzer) tableDigestPrefix(table string) fnvWriter {
	var w fnvWriter
	w.init()
	w.WriteString("col:")
	if a.canon != nil {
		w.WriteString(a.canon(table))
	} else {
		w.writeLower(table)
	}
	_ = w.WriteByte('.')
	return w
}

func colDigestFrom(w fnvWriter, col string) uint64 {
	w.writeLower(col)
	return w.h
}

type schemaEntry struct {
	key  string
	cols []string
}

// seeTable records a table read; it reports false for a repeat.
func (a *analyzer) seeTable(lname string) bool {
	if slices.Contains(a.tableKeys, lname) {
		return false
	}
	if a.tableKeys == nil {
		a.tableKeys = a.strBuf.Take(4, 256)[:0]
	}
	a.tableKeys = append(a.tableKeys, lname)
	return true
}

func newAnalyzer(d sqlparse.Dialect, schema Schema) *analyzer {
	a := &analyzer{d: d, schema: make(map[string][]string, len(schema)), st: &ModelStructure{}, resMem: &resMem{}}
	a.structure = true
	for k, v := range schema {
		nk := normRel(k)
		a.schema[nk] = v
		a.schemaKeys = append(a.schemaKeys, nk)
	}
	sort.Strings(a.schemaKeys)
	return a
}

// normRel lower-cases a relation name and strips identifier quotes.
func normRel(s string) string {
	if r, ok := normRelASCII(s); ok {
		return r
	}
	if strings.ContainsAny(s, "\"`[] \t\n") {
		var b strings.Builder
		for _, r := range strings.TrimSpace(s) {
			switch r {
			case '"', '`', '[', ']':
				continue
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	return strings.ToLower(s)
}

// normRelASCII is normRel for ASCII names, building the result in one
// allocation (none when s is already normal); relation names are
// normalised for every node of a project on each analysis. ok is false
// for non-ASCII s.
func normRelASCII(s string) (string, bool) {
	upper, special := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80:
			return "", false
		case c >= 'A' && c <= 'Z':
			upper = true
		case c == '"', c == '`', c == '[', c == ']', c == ' ', c == '\t', c == '\n':
			special = true
		}
	}
	if special {
		// As normRel: only a name with quotes or blanks is trimmed
		// (strings.TrimSpace trims exactly these bytes of ASCII input).
		isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }
		for len(s) > 0 && isSpace(s[0]) {
			s = s[1:]
		}
		for len(s) > 0 && isSpace(s[len(s)-1]) {
			s = s[:len(s)-1]
		}
	} else if !upper {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case special && (c == '"' || c == '`' || c == '[' || c == ']'):
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b), true
}

// hashStr is FNV-1a 64 of s.
func hashStr(s string) uint64 {
	var w fnvWriter
	w.init()
	w.WriteString(s)
	return w.h
}

// fnvWriter digests canonical SQL text as it is written (FNV-1a 64), so
// digests cost no string building. Digests must be stable across
// processes, because base and current builds are compared.
type fnvWriter struct{ h uint64 }

func (w *fnvWriter) init() { w.h = 14695981039346656037 }

func (w *fnvWriter) WriteString(s string) (int, error) {
	h := w.h
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	w.h = h
	return len(s), nil
}

func (w *fnvWriter) WriteByte(c byte) error {
	w.h ^= uint64(c)
	w.h *= 1099511628211
	return nil
}

func (w *fnvWriter) writeLower(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		_ = w.WriteByte(c)
	}
}

func (w *fnvWriter) writeU64(v uint64) {
	for i := 0; i < 8; i++ {
		_ = w.WriteByte(byte(v >> (8 * i)))
	}
}

func writeDigest(wr sqlparse.Writer, v uint64) {
	_ = wr.WriteByte('{')
	for i := 0; i < 8; i++ {
		_ = wr.WriteByte(byte(v >> (8 * i)))
	}
	_ = wr.WriteByte('}')
}

// hashDigests combines digests with a tag.
func hashDigests(tag string, ds ...uint64) uint64 {
	var w fnvWriter
	w.init()
	w.WriteString(tag)
	for _, d := range ds {
		w.writeU64(d)
	}
	return w.h
}

// hasDotSuffix is strings.HasSuffix(s, "."+suf) without building the suffix.
func hasDotSuffix(s, suf string) bool {
	return len(s) > len(suf) && s[len(s)-len(suf)-1] == '.' && s[len(s)-len(suf):] == suf
}

func (a *analyzer) lookupSchema(name string) ([]string, bool) {
	n := normRel(name)
	if a.schemaList != nil {
		for _, e := range a.schemaList {
			if e.key == n {
				return e.cols, true
			}
		}
		var found []string
		hits := 0
		for _, e := range a.schemaList {
			if hasDotSuffix(e.key, n) || hasDotSuffix(n, e.key) {
				found = e.cols
				hits++
			}
		}
		if hits == 1 {
			return found, true
		}
		return nil, false
	}
	if cols, ok := a.schema[n]; ok {
		return cols, true
	}
	// Names may be written shorter or longer than the schema key.
	var found []string
	hits := 0
	for _, k := range a.schemaKeys {
		if hasDotSuffix(k, n) || hasDotSuffix(n, k) {
			found = a.schema[k]
			hits++
		}
	}
	if hits == 1 {
		return found, true
	}
	return nil, false
}

func (a *analyzer) foldCol(c string) string {
	if a.d.Fold == sqlparse.FoldNone {
		return c
	}
	if strings.ToLower(c) == c || strings.ToUpper(c) == c {
		return a.d.FoldIdent(c)
	}
	return c
}

// ---- queries ----

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

// ---- SELECT ----

type exprCtx struct {
	sc *scope
	// aliases are select-list outputs usable by name (lateral aliases,
	// HAVING/QUALIFY/ORDER BY aliases).
	aliases []rcol
	// aliasFirst makes output aliases win over source columns (ORDER BY).
	aliasFirst bool
	lambda     map[string]bool
	// subRow collects row deps of subqueries when resolving a row clause.
	row bool
}

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
		ctx := &exprCtx{sc: sc, aliases: sc.items}
		l := a.exprLin(it.Expr, ctx)
		name := it.Alias
		if name == "" {
			name = a.exprName(it.Expr)
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

// ---- FROM ----

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
		a.addTable(x.Left, sc, env, out, rowParts)
		before := len(sc.sources)
		a.addTable(x.Right, sc, env, out, rowParts)
		right := sc.sources[before:]
		left := sc.sources[:before]
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
		if len(using) > 0 {
			if sc.using == nil {
				sc.using = map[string]*lin{}
			}
			for _, u := range using {
				var ls []*lin
				for _, side := range [][]*source{left, right} {
					for _, s := range side {
						if l, ok := s.rel.find(u); ok {
							ls = append(ls, l)
							break
						}
						if l, _, ok := s.rel.lookupWeak(u); ok {
							ls = append(ls, l)
							break
						}
					}
				}
				for _, l := range ls {
					out.rowDeps = a.appendDeps(out.rowDeps, l.deps)
				}
				m := mergeLin(ls...)
				m.kind = KindPassthrough
				m.orig = u
				if len(ls) > 0 && ls[0].orig != "" {
					m.orig = ls[0].orig
				}
				sc.using[strings.ToLower(u)] = m
				for _, s := range append(append([]*source(nil), left...), right...) {
					if s.usingOf == nil {
						s.usingOf = map[string]bool{}
					}
					s.usingOf[strings.ToLower(u)] = true
				}
				*rowParts = append(*rowParts, hashDigests("using", m.digest))
			}
			info.Condition = "USING (" + strings.Join(using, ", ") + ")"
		}
		a.st.Joins = append(a.st.Joins, info)
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

// elementFuncs are table functions whose rows are elements of their
// arguments; everything else in FROM position is opaque.
var elementFuncs = map[string]bool{
	"UNNEST": true, "FLATTEN": true, "EXPLODE": true, "EXPLODE_OUTER": true, "POSEXPLODE": true, "POSEXPLODE_OUTER": true,
	"INLINE": true, "INLINE_OUTER": true, "GENERATE_SERIES": true, "GENERATE_DATE_ARRAY": true, "GENERATE_TIMESTAMP_ARRAY": true,
	"GENERATE_ARRAY": true, "RANGE": true, "JSON_EACH": true, "JSONB_EACH": true, "JSON_EACH_TEXT": true, "JSONB_EACH_TEXT": true,
	"JSON_ARRAY_ELEMENTS": true, "JSONB_ARRAY_ELEMENTS": true, "JSON_ARRAY_ELEMENTS_TEXT": true, "JSONB_ARRAY_ELEMENTS_TEXT": true,
	"REGEXP_SPLIT_TO_TABLE": true, "STRING_TO_TABLE": true, "SPLIT_TO_TABLE": true, "JSON_TABLE": true, "UNNEST_ARRAY": true,
	"TABLE": true,
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

// ---- stars ----

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

// ---- name resolution ----

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

// niladic are keywords that look like columns but are values.
var niladic = map[string]bool{
	"CURRENT_TIMESTAMP": true, "CURRENT_DATE": true, "CURRENT_TIME": true, "LOCALTIME": true, "LOCALTIMESTAMP": true,
	"CURRENT_USER": true, "SESSION_USER": true, "SYSDATE": true, "SYSTIMESTAMP": true, "CURRENT_SCHEMA": true,
	"CURRENT_DATABASE": true, "CURRENT_ROLE": true, "CURRENT_CATALOG": true, "GETDATE": true,
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
		if len(strong) == 1 {
			return strong[0], true
		}
		if len(strong) > 1 {
			return withConf(strong[0], Inferred), true
		}
		if sc == ctx.sc {
			if l, ok := findAlias(); ok {
				return l, true
			}
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
	a.unresolved = append(a.unresolved, c.Name.String())
	return &lin{kind: KindSource, digest: hashStr("unresolved:" + c.Name.String())}, true
}

// ---- expressions ----

var aggregates = map[string]bool{
	"SUM": true, "COUNT": true, "AVG": true, "MIN": true, "MAX": true, "ANY_VALUE": true, "ARRAY_AGG": true,
	"STRING_AGG": true, "LISTAGG": true, "GROUP_CONCAT": true, "MEDIAN": true, "MODE": true, "STDDEV": true,
	"STDDEV_POP": true, "STDDEV_SAMP": true, "VARIANCE": true, "VAR_POP": true, "VAR_SAMP": true, "COUNT_IF": true,
	"COUNTIF": true, "APPROX_COUNT_DISTINCT": true, "APPROX_DISTINCT": true, "BOOL_AND": true, "BOOL_OR": true,
	"BOOLAND_AGG": true, "BOOLOR_AGG": true, "LOGICAL_AND": true, "LOGICAL_OR": true, "EVERY": true,
	"PERCENTILE_CONT": true, "PERCENTILE_DISC": true, "APPROX_PERCENTILE": true, "APPROX_QUANTILES": true,
	"QUANTILE": true, "QUANTILE_CONT": true, "QUANTILE_DISC": true, "LIST": true, "OBJECT_AGG": true,
	"ARRAY_UNIQUE_AGG": true, "HLL": true, "ARG_MAX": true, "ARG_MIN": true, "ARGMAX": true, "ARGMIN": true,
	"MAX_BY": true, "MIN_BY": true, "SUM_IF": true, "AVG_IF": true, "BIT_AND": true, "BIT_OR": true, "JSON_AGG": true,
	"JSONB_AGG": true, "JSON_OBJECT_AGG": true, "CORR": true, "COVAR_POP": true, "COVAR_SAMP": true, "FIRST": true,
	"LAST": true, "COLLECT_LIST": true, "COLLECT_SET": true, "KURTOSIS": true, "SKEWNESS": true, "ENTROPY": true,
	"HISTOGRAM": true, "PRODUCT": true, "FSUM": true, "STRING_AGG_DISTINCT": true, "XMLAGG": true,
}

// IsAggregate reports whether a function name is an aggregate.
func IsAggregate(name string) bool { return inUpper(aggregates, name) }

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

// walkExpr visits e and its sub-expressions, not entering subqueries.
func walkExpr(e sqlparse.Expr, fn func(sqlparse.Expr)) {
	if e == nil {
		return
	}
	fn(e)
	switch x := e.(type) {
	case *sqlparse.Func:
		for _, arg := range x.Args {
			walkExpr(arg, fn)
		}
		walkExpr(x.Filter, fn)
	case *sqlparse.Binary:
		walkExpr(x.Left, fn)
		walkExpr(x.Right, fn)
	case *sqlparse.Unary:
		walkExpr(x.Expr, fn)
	case *sqlparse.Case:
		walkExpr(x.Operand, fn)
		for _, w := range x.Whens {
			walkExpr(w[0], fn)
			walkExpr(w[1], fn)
		}
		walkExpr(x.Else, fn)
	case *sqlparse.Cast:
		walkExpr(x.Expr, fn)
	case *sqlparse.InExpr:
		walkExpr(x.Expr, fn)
		for _, i := range x.List {
			walkExpr(i, fn)
		}
	case *sqlparse.Between:
		walkExpr(x.Expr, fn)
		walkExpr(x.Lo, fn)
		walkExpr(x.Hi, fn)
	case *sqlparse.Access:
		walkExpr(x.Expr, fn)
		walkExpr(x.Index, fn)
	case *sqlparse.List:
		for _, i := range x.Items {
			walkExpr(i, fn)
		}
	case *sqlparse.Lambda:
		walkExpr(x.Body, fn)
	case *sqlparse.Named:
		walkExpr(x.Value, fn)
	case *sqlparse.TypedLiteral:
		walkExpr(x.Value, fn)
	}
}

func isDateFunc(name string) bool {
	var buf [32]byte
	if u, ok := upperASCII(buf[:0], name); ok {
		return bytes.Contains(u, []byte("DATE")) || bytes.Contains(u, []byte("TIME")) || isDateFuncName(string(u))
	}
	u := strings.ToUpper(name)
	return strings.Contains(u, "DATE") || strings.Contains(u, "TIME") || isDateFuncName(u)
}

func isDateFuncName(u string) bool {
	switch u {
	case "EXTRACT", "LAST_DAY", "TRUNC", "DATE_PART", "DATEPART", "TIME_SLICE", "TIMESTAMPADD", "TIMESTAMPDIFF":
		return true
	}
	return false
}

// upperASCII appends s upper-cased to dst when s is ASCII and fits dst's
// capacity (a stack buffer), so that lookups need no allocation; ok is
// false otherwise and the caller falls back to strings.ToUpper.
func upperASCII(dst []byte, s string) ([]byte, bool) {
	if len(s) > cap(dst)-len(dst) {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return nil, false
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst, true
}

// inUpper is set[strings.ToUpper(s)] without allocating for short ASCII s.
func inUpper(set map[string]bool, s string) bool {
	var buf [32]byte
	if u, ok := upperASCII(buf[:0], s); ok {
		return set[string(u)]
	}
	return set[strings.ToUpper(s)]
}

// exprLin computes the lineage of an expression.
func (a *analyzer) exprLin(e sqlparse.Expr, ctx *exprCtx) *lin {
	mark := len(a.memo)
	defer func() { a.memo = a.memo[:mark] }()
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

// digestCtx digests an expression with every column reference replaced by
// the digest of what it resolves to, so aliases and formatting drop out.
func (a *analyzer) digestCtx(e sqlparse.Expr, ctx *exprCtx) uint64 {
	// Save and restore a.fw so that a nested digest cannot clobber ours.
	saved := a.fw
	a.fw.init()
	sqlparse.FormatTo(&a.fw, e, func(wr sqlparse.Writer, c *sqlparse.ColumnRef) bool {
		for i := len(a.memo) - 1; i >= 0; i-- {
			if a.memo[i].ref == c {
				writeDigest(wr, a.memo[i].l.digest)
				return true
			}
		}
		l, _ := a.resolveName(c, ctx)
		if l == nil {
			return false
		}
		writeDigest(wr, l.digest)
		return true
	})
	h := a.fw.h
	a.fw = saved
	return h
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
		datey := isDateFunc(x.Name.Last())
		for _, arg := range x.Args {
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
	for _, c := range rel.cols {
		emit.add(c.l)
	}
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

func (a *analyzer) digestExpr(e sqlparse.Expr, sc *scope) uint64 {
	return a.digestCtx(e, &exprCtx{sc: sc, aliases: sc.items})
}

func dedupDeps(ds []dep) []dep { return dedupDepsIn(ds, nil) }

// dedupDepsIn is dedupDeps taking the output storage from mem when set.
func dedupDepsIn(ds []dep, mem *resMem) []dep {
	if len(ds) <= 1 {
		return ds
	}
	// Dep lists are short; a quadratic scan beats building a map. Most
	// have no duplicate: return them as they are (deps are never written
	// in place, so sharing is safe).
	if !hasDupDeps(ds) {
		return ds
	}
	var out []dep
	if mem != nil {
		out = mem.depBuf.Take(len(ds), 512)[:0]
	} else {
		out = make([]dep, 0, len(ds))
	}
next:
	for _, d := range ds {
		for i := range out {
			if out[i].col == d.col && out[i].table == d.table || equalFold(out[i].col, d.col) && equalFold(out[i].table, d.table) {
				// Keep the best confidence seen for an edge.
				if d.conf == Exact || d.conf == Inferred && out[i].conf == Unknown {
					out[i].conf = d.conf
				}
				continue next
			}
		}
		out = append(out, d)
	}
	return out
}

func hasDupDeps(ds []dep) bool {
	for j := 1; j < len(ds); j++ {
		d := ds[j]
		for i := 0; i < j; i++ {
			if ds[i].col == d.col && ds[i].table == d.table || equalFold(ds[i].col, d.col) && equalFold(ds[i].table, d.table) {
				return true
			}
		}
	}
	return false
}

// ---- entry point ----

// AnalyzeSQL computes the column lineage of one query. On a syntax error
// it returns an opaque QueryLineage (reason = the error) and the error,
// which carries the line and column.
func AnalyzeSQL(dialect, sql string, schema Schema) (*QueryLineage, error) {
	d := sqlparse.LookupDialect(dialect)
	q, err := sqlparse.Parse(d, sql)
	if err != nil {
		ql := &QueryLineage{Dialect: d.Name, Opaque: true, OpaqueReason: "unparseable SQL: " + err.Error(),
			Columns: []OutputColumn{}, RowDeps: []ColumnRef{}, Tables: []string{},
			Structure: &ModelStructure{Unparseable: true, ParseError: err.Error()}}
		return ql, fmt.Errorf("parse %s SQL: %w", d.Name, err)
	}
	return analyzeParsed(d, q, schema, nil), nil
}

// analysis is a resolved query before it is shaped for a caller.
type analysis struct {
	a            *analyzer
	rel          *relation
	opaqueReason string
}

// runAnalysis resolves q. Resolution must never take the process down on
// odd input, so a panic becomes an opaque result.
func runAnalysis(a *analyzer, q *sqlparse.Query) (res analysis) {
	res.a = a
	defer func() {
		if r := recover(); r != nil {
			res.rel = &relation{}
			res.opaqueReason = fmt.Sprintf("internal error while resolving lineage: %v", r)
		}
	}()
	rel := a.query(q, nil, nil)
	_, a.st.IsSetOperation = q.Body.(*sqlparse.SetOp)
	res.rel = rel
	for _, c := range rel.cols {
		if c.name == "*" {
			var ts []string
			for _, d := range c.l.deps {
				ts = append(ts, d.table)
			}
			a.opaque = append(a.opaque, "star over a relation with unknown columns: "+strings.Join(ts, ", "))
			break
		}
	}
	switch {
	case len(a.opaque) > 0:
		res.opaqueReason = a.opaque[0]
	case len(a.unresolved) > 0:
		res.opaqueReason = "unresolved reference: " + a.unresolved[0]
	}
	a.st.normalize()
	return res
}

func analyzeParsed(d sqlparse.Dialect, q *sqlparse.Query, schema Schema, canon func(string) string) *QueryLineage {
	a := newAnalyzer(d, schema)
	a.canon = canon
	a.structure = canon == nil
	res := runAnalysis(a, q)
	a, rel := res.a, res.rel
	ql := &QueryLineage{Dialect: d.Name, Columns: make([]OutputColumn, 0, len(rel.cols)), Tables: a.tables, RowDigest: Digest(rel.rowDigest),
		Opaque: res.opaqueReason != "", OpaqueReason: res.opaqueReason, Structure: a.st}
	if ql.Tables == nil {
		ql.Tables = []string{}
	}
	for _, c := range rel.cols {
		oc := OutputColumn{Name: c.name, Kind: c.l.kind, Digest: Digest(c.l.digest), Deps: toRefs(c.l.deps)}
		ql.Columns = append(ql.Columns, oc)
		p := Projection{Name: c.name, IsAggregate: c.l.kind == KindAggregate, IsDerived: c.l.kind == KindDerived || c.l.kind == KindAggregate, SourceColumns: []string{}}
		for _, r := range oc.Deps {
			p.SourceColumns = append(p.SourceColumns, r.String())
		}
		a.st.Projections = append(a.st.Projections, p)
	}
	a.st.normalize()
	ql.RowDeps = toRefs(dedupDeps(rel.rowDeps))
	return ql
}

func toRefs(ds []dep) []ColumnRef {
	ds = dedupDeps(ds)
	out := make([]ColumnRef, 0, len(ds))
	for _, d := range ds {
		out = append(out, ColumnRef{Table: d.table, Column: d.col, Confidence: d.conf})
	}
	return out
}

func (s *ModelStructure) normalize() *ModelStructure {
	nz := func(v []string) []string {
		if v == nil {
			return []string{}
		}
		return v
	}
	s.Refs, s.Filters, s.GroupBy, s.Having, s.OrderBy = nz(s.Refs), nz(s.Filters), nz(s.GroupBy), nz(s.Having), nz(s.OrderBy)
	if s.Projections == nil {
		s.Projections = []Projection{}
	}
	if s.Joins == nil {
		s.Joins = []JoinInfo{}
	}
	if s.Aggregations == nil {
		s.Aggregations = []Aggregation{}
	}
	return s
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
