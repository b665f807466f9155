package cll

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/sqlparse"
)

// NodeColumn names a column of a manifest node.
type NodeColumn struct {
	Node   string `json:"node"`
	Column string `json:"column"`
}

func (n NodeColumn) String() string { return n.Node + "." + n.Column }

func (n NodeColumn) key() NodeColumn {
	return NodeColumn{Node: n.Node, Column: strings.ToLower(n.Column)}
}

// ColumnDep is a lineage edge to an upstream node column. Relation is set
// (and Node empty) when the SQL reads a relation that is not in the manifest.
type ColumnDep struct {
	Node       string     `json:"node,omitempty"`
	Relation   string     `json:"relation,omitempty"`
	Column     string     `json:"column"`
	Confidence Confidence `json:"confidence"`
}

func (d ColumnDep) nodeColumn() NodeColumn {
	n := d.Node
	if n == "" {
		n = "relation:" + strings.ToLower(d.Relation)
	}
	return NodeColumn{Node: n, Column: d.Column}
}

// ModelColumn is one output column of a model.
type ModelColumn struct {
	Name   string      `json:"name"`
	Kind   Kind        `json:"kind"`
	Deps   []ColumnDep `json:"deps"`
	Digest Digest      `json:"digest"`
}

// ModelLineage is the lineage of one model. Values are shared through the
// Cache and must be treated as read-only.
type ModelLineage struct {
	UniqueID     string        `json:"unique_id"`
	Name         string        `json:"name"`
	Dialect      string        `json:"dialect"`
	Columns      []ModelColumn `json:"columns"`
	RowDeps      []ColumnDep   `json:"row_deps"`
	Opaque       bool          `json:"opaque"`
	OpaqueReason string        `json:"opaque_reason,omitempty"`
	Parents      []string      `json:"parents"`
	Unmatched    []string      `json:"unmatched_relations,omitempty"`
	RowDigest    Digest        `json:"row_digest"`
	// Structure holds the flags and refs of the SQL structure; use
	// ModelStructure() for the complete view (filters, joins, projections).
	Structure *ModelStructure `json:"structure,omitempty"`
	// sql is the compiled SQL, kept to rebuild the structure on demand.
	sql string
	// trivial marks lineage decided without SQL (Python, not compiled).
	trivial bool
	// names are the output column names, shared read-only with downstream
	// models as their upstream schema (nil when not fully known).
	names []string
	// namesHash is namesHash(names), for cache keys downstream.
	namesHash uint64
}

// ModelStructure returns the model's SQL structure for analyze_model, with
// projections filled from the resolved columns.
func (m *ModelLineage) ModelStructure() *ModelStructure {
	st := ModelStructure{}
	if m.Structure != nil {
		st = *m.Structure
	}
	if m.sql != "" {
		// Project analysis skips the text parts; rebuild them from the SQL.
		if ql, err := AnalyzeSQL(m.Dialect, m.sql, nil); err == nil && ql.Structure != nil {
			st = *ql.Structure
		}
	}
	st.Projections = make([]Projection, 0, len(m.Columns))
	for _, c := range m.Columns {
		p := Projection{Name: c.Name, IsAggregate: c.Kind == KindAggregate, IsDerived: c.Kind == KindDerived || c.Kind == KindAggregate, SourceColumns: make([]string, 0, len(c.Deps))}
		for _, d := range c.Deps {
			p.SourceColumns = append(p.SourceColumns, d.nodeColumn().String())
		}
		st.Projections = append(st.Projections, p)
	}
	return &st
}

// Column returns the output column with this name (case-insensitive).
func (m *ModelLineage) Column(name string) (*ModelColumn, bool) {
	for i := range m.Columns {
		if equalFold(m.Columns[i].Name, name) {
			return &m.Columns[i], true
		}
	}
	return nil, false
}

// Cache memoises model lineage by a content hash of (dialect, compiled
// SQL, upstream relations and their columns). It is safe for concurrent use.
type Cache struct {
	seed   maphash.Seed
	mu     sync.RWMutex
	m      map[uint64]*ModelLineage
	shapes map[uint64]*projectShape
	// sqlHashes memoises sqlHash per model id.
	sqlHashes map[string]sqlMemo
	// workers recycles parser and resolver memory across models.
	workers sync.Pool
	hits    atomic.Int64
	misses  atomic.Int64
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{seed: maphash.MakeSeed(), m: map[uint64]*ModelLineage{}, shapes: map[uint64]*projectShape{}, sqlHashes: map[string]sqlMemo{}}
}

// projectShape is everything about a project except its SQL: relation
// index, catalog columns, dependency waves. It is rebuilt only when a
// relation, dependency or catalog entry changes.
type projectShape struct {
	ri       *relIndex
	waves    [][]string
	children map[string][]string
}

// shapeKey fingerprints the parts of env that projectShape depends on. The
// per-node hashes are summed so that map iteration order does not matter.
//
// Each string is hashed with one maphash.String call (no copying) and the
// hashes are chained with a position-dependent mix, with a tag per kind of
// field so that fields cannot be confused with one another.
func (c *Cache) shapeKey(env *dbt.Env) uint64 {
	var sum uint64
	str := func(acc uint64, tag uint64, s string) uint64 {
		return mix64(acc ^ tag ^ maphash.String(c.seed, s))
	}
	for id, n := range env.Manifest.AllNodes() {
		switch n.ResourceType {
		case dbt.Model, dbt.Seed, dbt.Snapshot, dbt.Source:
		default:
			continue
		}
		var acc uint64 = 1
		for i, s := range [...]string{id, n.ResourceType, n.RelationName, n.Database, n.Schema, n.Alias, n.Identifier, n.Name} {
			acc = str(acc, uint64(i)<<56, s)
		}
		if n.ResourceType == dbt.Model {
			for _, d := range n.DependsOn.Nodes {
				acc = str(acc, 1<<60, d)
			}
		}
		sum += acc
	}
	if env.Catalog != nil {
		for si, sec := range []map[string]*dbt.CatalogEntry{env.Catalog.Nodes, env.Catalog.Sources} {
			for id, e := range sec {
				acc := str(uint64(2+si), 2<<60, id)
				acc = mix64(acc + uint64(len(e.Columns)))
				for name, col := range e.Columns {
					// Columns are summed: map order must not matter.
					sum += mix64(str(acc, 3<<60, name) + uint64(col.Index))
				}
				sum += acc
			}
		}
	}
	return sum
}

// mix64 is the splitmix64 finaliser: a cheap, well-distributed bijection.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func (c *Cache) shape(env *dbt.Env) *projectShape {
	k := c.shapeKey(env)
	c.mu.RLock()
	sh, ok := c.shapes[k]
	c.mu.RUnlock()
	if ok {
		return sh
	}
	sh = buildShape(env)
	c.mu.Lock()
	if len(c.shapes) >= 8 {
		// Projects rarely alternate between many shapes; drop old ones.
		clear(c.shapes)
	}
	c.shapes[k] = sh
	c.mu.Unlock()
	return sh
}

func buildShape(env *dbt.Env) *projectShape {
	m := env.Manifest
	// The relation index and the dependency order are independent: build
	// them on two cores (this part of a cold analysis is serial).
	type riResult struct {
		ri    *relIndex
		panic any
	}
	riDone := make(chan riResult, 1)
	go func() {
		// A panic is handed to the caller's goroutine, where it was
		// raised before this ran concurrently.
		defer func() {
			if r := recover(); r != nil {
				riDone <- riResult{panic: r}
			}
		}()
		ri := newRelIndex(m)
		for id := range ri.keys {
			if cc := catalogColumns(env, id); cc != nil {
				ri.catalog[id] = catalogCols{cols: cc, hash: namesHash(cc)}
			}
		}
		riDone <- riResult{ri: ri}
	}()
	var models []string
	for id, n := range m.Nodes {
		if n.ResourceType == dbt.Model && n.Enabled() {
			models = append(models, id)
		}
	}
	sort.Strings(models)
	isModel := make(map[string]bool, len(models))
	for _, id := range models {
		isModel[id] = true
	}
	children := map[string][]string{}
	for _, id := range models {
		for _, p := range m.Nodes[id].DependsOn.Nodes {
			children[p] = append(children[p], id)
		}
	}
	wv := waves(m, models, isModel)
	r := <-riDone
	if r.panic != nil {
		panic(r.panic)
	}
	return &projectShape{ri: r.ri, waves: wv, children: children}
}

// sqlHash hashes a model's SQL, remembering the result per model while
// its SQL stays the same string: an unchanged project then costs no
// rehashing of megabytes of SQL.
func (c *Cache) sqlHash(id, sql string) uint64 {
	c.mu.RLock()
	e, ok := c.sqlHashes[id]
	c.mu.RUnlock()
	// Comparing a string with itself returns at once (same data pointer).
	if ok && e.sql == sql {
		return e.h
	}
	h := maphash.String(c.seed, sql)
	c.mu.Lock()
	if len(c.sqlHashes) >= maxCacheEntries {
		clear(c.sqlHashes)
	}
	c.sqlHashes[id] = sqlMemo{sql: sql, h: h}
	c.mu.Unlock()
	return h
}

type sqlMemo struct {
	sql string
	h   uint64
}

// namesHash fingerprints an ordered column list (FNV-1a over
// length-prefixed names, finalised); it is computed once per list.
func namesHash(names []string) uint64 {
	var w fnvWriter
	w.init()
	w.writeU64(uint64(len(names)))
	for _, n := range names {
		w.writeU64(uint64(len(n)))
		w.WriteString(n)
	}
	return mix64(w.h)
}

type catalogCols struct {
	cols []string
	hash uint64
}

// Len returns the number of cached models.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

func (c *Cache) get(k uint64) (*ModelLineage, bool) {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	return v, ok
}

// maxCacheEntries bounds a long-lived cache (an MCP server sees many
// versions of each model); dropping everything is crude but keeps memory
// bounded and costs one cold analysis.
const maxCacheEntries = 200_000

func (c *Cache) put(k uint64, v *ModelLineage) {
	c.mu.Lock()
	if len(c.m) >= maxCacheEntries {
		clear(c.m)
	}
	c.m[k] = v
	c.mu.Unlock()
}

// ProjectStats summarises an AnalyzeProject run.
type ProjectStats struct {
	Models   int            `json:"models"`
	Opaque   int            `json:"opaque"`
	Analyzed int            `json:"analyzed"`
	Cached   int            `json:"cached"`
	Reasons  map[string]int `json:"opaque_reasons"`
}

// ProjectLineage is column lineage for every model of a project.
type ProjectLineage struct {
	Dialect string                   `json:"dialect"`
	Models  map[string]*ModelLineage `json:"models"`
	// Waves are the models in dependency order; models in one wave do not
	// depend on each other.
	Waves [][]string   `json:"waves"`
	Stats ProjectStats `json:"stats"`

	children map[string][]string
	once     sync.Once
	idx      *graphIndex
	scratch  sync.Pool
}

// relIndex matches relation names written in SQL to manifest nodes.
type relIndex struct {
	full  map[string]string // db.schema.alias and relation_name
	short map[string][]string
	keys  map[string][]string // node id -> its relation keys
	// catalog caches catalog column names per node id.
	catalog map[string]catalogCols
}

func relKeys(n *dbt.Node) []string {
	var keys []string
	if n.RelationName != "" {
		keys = append(keys, normRel(n.RelationName))
	}
	id := n.RelationIdentifier()
	if n.Database != "" && n.Schema != "" {
		keys = append(keys, normRel(n.Database+"."+n.Schema+"."+id))
	}
	if n.Schema != "" {
		keys = append(keys, normRel(n.Schema+"."+id))
	}
	return keys
}

func newRelIndex(m *dbt.Manifest) *relIndex {
	ri := &relIndex{full: map[string]string{}, short: map[string][]string{}, keys: map[string][]string{}, catalog: map[string]catalogCols{}}
	ids := make([]string, 0, len(m.AllNodes()))
	for id := range m.AllNodes() {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		n := m.AllNodes()[id]
		switch n.ResourceType {
		case dbt.Model, dbt.Seed, dbt.Snapshot, dbt.Source:
		default:
			continue
		}
		ri.keys[id] = relKeys(n)
		for _, k := range ri.keys[id] {
			if _, ok := ri.full[k]; !ok {
				ri.full[k] = id
			}
		}
		s := strings.ToLower(n.RelationIdentifier())
		ri.short[s] = append(ri.short[s], id)
	}
	return ri
}

// match finds the node for a relation as written, preferring parents.
func (ri *relIndex) match(written string, parents []upstream) string {
	w := normRel(written)
	for _, u := range parents {
		for _, k := range u.keys {
			if k == w || strings.HasSuffix(k, "."+w) {
				return u.id
			}
		}
	}
	if id, ok := ri.full[w]; ok {
		return id
	}
	last := w
	if i := strings.LastIndexByte(w, '.'); i >= 0 {
		last = w[i+1:]
	}
	if ids := ri.short[last]; len(ids) == 1 {
		return ids[0]
	}
	return ""
}

// AnalyzeProject computes column lineage for every model in env, in
// dependency waves, in parallel. Upstream schemas come from the catalog
// when it lists the relation, else from the upstream model's resolved
// outputs, else from YAML-documented columns. A nil cache disables reuse.
func AnalyzeProject(ctx context.Context, env *dbt.Env, cache *Cache) (*ProjectLineage, error) {
	if env == nil || env.Manifest == nil {
		return nil, fmt.Errorf("analyze project lineage: no manifest loaded; run dbt compile (or dbt build) first")
	}
	if cache == nil {
		cache = NewCache()
	}
	m := env.Manifest
	dialect := sqlparse.LookupDialect(m.Metadata.AdapterType).Name
	sh := cache.shape(env)
	ri := sh.ri
	pl := &ProjectLineage{Dialect: dialect, Models: make(map[string]*ModelLineage, len(m.Nodes)), children: sh.children,
		Stats: ProjectStats{Reasons: map[string]int{}}}
	pl.Waves = sh.waves

	workers := runtime.GOMAXPROCS(0)
	for _, wave := range pl.Waves {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("analyze project lineage: %w", err)
		}
		results := make([]*ModelLineage, len(wave))
		cached := make([]bool, len(wave))
		var next atomic.Int64
		var wg sync.WaitGroup
		n := workers
		if n > len(wave) {
			n = len(wave)
		}
		for w := 0; w < n; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= len(wave) || ctx.Err() != nil {
						return
					}
					// pl.Models is only written between waves, so
					// reading it here needs no lock.
					results[i], cached[i] = analyzeModel(env, m.Nodes[wave[i]], dialect, ri, pl.Models, cache)
				}
			}()
		}
		wg.Wait()
		for i, id := range wave {
			if results[i] == nil {
				continue
			}
			pl.Models[id] = results[i]
			if results[i].trivial {
				// Python models and models without SQL: nothing to analyse.
			} else if cached[i] {
				pl.Stats.Cached++
			} else {
				pl.Stats.Analyzed++
			}
			if results[i].Opaque {
				pl.Stats.Opaque++
				pl.Stats.Reasons[reasonClass(results[i].OpaqueReason)]++
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("analyze project lineage: %w", err)
	}
	pl.Stats.Models = len(pl.Models)
	return pl, nil
}

// reasonClass shortens an opaque reason to its category for statistics.
func reasonClass(r string) string {
	if i := strings.IndexByte(r, ':'); i > 0 {
		return r[:i]
	}
	return r
}

// waves orders models so every model comes after the models it reads.
func waves(m *dbt.Manifest, models []string, isModel map[string]bool) [][]string {
	indeg := make(map[string]int, len(models))
	kids := map[string][]string{}
	for _, id := range models {
		seen := map[string]bool{}
		for _, p := range m.Nodes[id].DependsOn.Nodes {
			if isModel[p] && p != id && !seen[p] {
				seen[p] = true
				indeg[id]++
				kids[p] = append(kids[p], id)
			}
		}
	}
	var cur []string
	for _, id := range models {
		if indeg[id] == 0 {
			cur = append(cur, id)
		}
	}
	var out [][]string
	placed := 0
	for len(cur) > 0 {
		sort.Strings(cur)
		out = append(out, cur)
		placed += len(cur)
		var nxt []string
		for _, id := range cur {
			for _, k := range kids[id] {
				indeg[k]--
				if indeg[k] == 0 {
					nxt = append(nxt, k)
				}
			}
		}
		cur = nxt
	}
	if placed < len(models) {
		// A cycle: analyse the rest last rather than dropping it.
		var rest []string
		for _, id := range models {
			if indeg[id] > 0 {
				rest = append(rest, id)
			}
		}
		out = append(out, rest)
	}
	return out
}

type upstream struct {
	id   string
	keys []string
	cols []string
}

func analyzeModel(env *dbt.Env, n *dbt.Node, dialect string, ri *relIndex, done map[string]*ModelLineage, cache *Cache) (*ModelLineage, bool) {
	newBase := func() *ModelLineage {
		return &ModelLineage{UniqueID: n.UniqueID, Name: n.Name, Dialect: dialect, Columns: []ModelColumn{}, RowDeps: []ColumnDep{}, Parents: []string{}}
	}
	switch {
	case strings.EqualFold(n.Language, "python"):
		base := newBase()
		base.Opaque, base.OpaqueReason, base.trivial = true, "python model: lineage is not derived from Python code", true
		return finish(base), false
	case strings.TrimSpace(n.CompiledCode) == "":
		base := newBase()
		base.Opaque, base.OpaqueReason, base.trivial = true, "no compiled SQL: run dbt compile to produce compiled_code", true
		return finish(base), false
	}
	ups := make([]upstream, 0, len(n.DependsOn.Nodes))
	var h maphash.Hash
	h.SetSeed(cache.seed)
	h.WriteString(dialect)
	h.WriteByte(0)
	h.WriteString(n.UniqueID)
	h.WriteByte(0)
	var word [8]byte
	writeU64 := func(v uint64) {
		binary.LittleEndian.PutUint64(word[:], v)
		h.Write(word[:])
	}
	writeU64(cache.sqlHash(n.UniqueID, n.CompiledCode))
	for _, pid := range n.DependsOn.Nodes {
		pn, ok := env.Manifest.Node(pid)
		if !ok {
			continue
		}
		keys, ok := ri.keys[pid]
		if !ok {
			keys = relKeys(pn)
		}
		u := upstream{id: pid, keys: keys}
		var colsHash uint64
		if cc, ok := ri.catalog[pid]; ok {
			u.cols, colsHash = cc.cols, cc.hash
		} else if ml, ok := done[pid]; ok {
			u.cols, colsHash = ml.names, ml.namesHash
		} else {
			for _, c := range env.Columns(pid) {
				u.cols = append(u.cols, c.Name)
			}
			colsHash = namesHash(u.cols)
		}
		h.WriteByte(1)
		h.WriteString(pid)
		for _, k := range u.keys {
			h.WriteByte(2)
			h.WriteString(k)
		}
		// One word for the columns: a call per name into h costs more
		// than hashing the names themselves.
		h.WriteByte(3)
		writeU64(colsHash)
		ups = append(ups, u)
	}
	key := h.Sum64()
	if v, ok := cache.get(key); ok {
		cache.hits.Add(1)
		return v, true
	}
	cache.misses.Add(1)
	ml := analyzeModelSQL(newBase(), n, dialect, ri, ups, cache)
	cache.put(key, ml)
	return ml, false
}

func catalogColumns(env *dbt.Env, id string) []string {
	ce, ok := env.Catalog.Entry(id)
	if !ok || len(ce.Columns) == 0 {
		return nil
	}
	cols := ce.SortedColumns()
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

func analyzeModelSQL(ml *ModelLineage, n *dbt.Node, dialect string, ri *relIndex, ups []upstream, cache *Cache) *ModelLineage {
	// The upstream schema: relation keys are normalised already (relKeys),
	// and a later upstream with the same key wins, as in a Schema map.
	schema := make([]schemaEntry, 0, len(ups))
next:
	for _, u := range ups {
		if len(u.keys) > 0 && len(u.cols) > 0 {
			for i := range schema {
				if schema[i].key == u.keys[0] {
					schema[i].cols = u.cols
					continue next
				}
			}
			schema = append(schema, schemaEntry{key: u.keys[0], cols: u.cols})
		}
	}
	matchMemo := map[string]string{}
	match := func(table string) string {
		if id, ok := matchMemo[table]; ok {
			return id
		}
		id := ri.match(table, ups)
		matchMemo[table] = id
		return id
	}
	canon := func(table string) string {
		if id := match(table); id != "" {
			return id
		}
		return normRel(table)
	}
	d := sqlparse.LookupDialect(dialect)
	w, _ := cache.workers.Get().(*worker)
	if w == nil {
		w = &worker{}
	}
	defer cache.workers.Put(w)
	// The previous model's AST and resolution state are dead: reuse them.
	w.pp.Reset()
	w.mem.reset()
	q, err := w.pp.Parse(d, n.CompiledCode)
	if err != nil {
		ml.Opaque, ml.OpaqueReason = true, "unparseable SQL: "+err.Error()
		ml.Structure = &ModelStructure{Unparseable: true, ParseError: err.Error()}
		ml.Structure.normalize()
		return finish(ml)
	}
	a := &w.an
	*a = analyzer{d: d, schemaList: schema, st: &ModelStructure{}, resMem: &w.mem, canon: canon}
	res := runAnalysis(a, q)
	rel := res.rel
	ml.Opaque, ml.OpaqueReason = res.opaqueReason != "", res.opaqueReason
	ml.RowDigest = Digest(rel.rowDigest)
	ml.Structure = res.a.st
	ml.sql = n.CompiledCode
	// Deps mostly name the same few tables: remember the last match.
	var lastTable, lastID string
	conv := func(d dep) ColumnDep {
		cd := ColumnDep{Column: d.col, Confidence: d.conf}
		var id string
		if d.table == lastTable && lastTable != "" {
			id = lastID
		} else {
			id = match(d.table)
			lastTable, lastID = d.table, id
		}
		if id != "" {
			cd.Node = id
		} else {
			cd.Relation = d.table
		}
		return cd
	}
	for _, t := range res.a.tables {
		if id := match(t); id != "" {
			if !slices.Contains(ml.Parents, id) {
				ml.Parents = append(ml.Parents, id)
			}
		} else {
			ml.Unmatched = append(ml.Unmatched, t)
		}
	}
	ml.Columns = make([]ModelColumn, len(rel.cols))
	colDeps := w.mem.depLists.Take(len(rel.cols), 256)
	total := 0
	for i, c := range rel.cols {
		colDeps[i] = dedupDepsIn(c.l.deps, &w.mem)
		total += len(colDeps[i])
	}
	// One array for every column's deps; capped sub-slices keep the
	// columns independent.
	all := make([]ColumnDep, total)
	for i, c := range rel.cols {
		deps := colDeps[i]
		cd := all[:len(deps):len(deps)]
		all = all[len(deps):]
		for j, d := range deps {
			cd[j] = conv(d)
		}
		ml.Columns[i] = ModelColumn{Name: c.name, Kind: c.l.kind, Digest: Digest(c.l.digest), Deps: cd}
	}
	rowDeps := dedupDepsIn(rel.rowDeps, &w.mem)
	if len(rowDeps) > 0 {
		ml.RowDeps = make([]ColumnDep, len(rowDeps))
		for i, d := range rowDeps {
			ml.RowDeps[i] = conv(d)
		}
	}
	return finish(ml)
}

// worker is the reusable memory of one model analysis at a time.
type worker struct {
	pp  sqlparse.Parser
	mem resMem
	an  analyzer
}

func finish(ml *ModelLineage) *ModelLineage {
	ml.names = make([]string, 0, len(ml.Columns))
	for _, c := range ml.Columns {
		if c.Name == "*" {
			// Unknown columns: downstream must not treat the list as complete.
			ml.names = nil
			break
		}
		ml.names = append(ml.names, c.Name)
	}
	ml.namesHash = namesHash(ml.names)
	if ml.Structure == nil {
		ml.Structure = (&ModelStructure{}).normalize()
	}
	return ml
}
