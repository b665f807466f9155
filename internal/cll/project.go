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
	// namesHash is namesHash of the output column names (of nil when
	// they are not fully known), for cache keys downstream. The names
	// themselves are listed again only for a downstream analysis
	// (appendNames): a list per model would stay in memory as long as
	// the lineage, for the garbage collector to scan.
	namesHash uint64
}

// fullyKnown reports whether the output columns are all known by name, so
// that downstream models can treat them as a complete schema.
func (m *ModelLineage) fullyKnown() bool {
	for _, c := range m.Columns {
		if c.Name == "*" {
			return false
		}
	}
	return true
}

// appendNames appends the output column names to buf and returns them as
// a capped slice of it, or nil when they are not fully known.
func (m *ModelLineage) appendNames(buf []string) ([]string, []string) {
	if !m.fullyKnown() {
		return buf, nil
	}
	start := len(buf)
	for _, c := range m.Columns {
		buf = append(buf, c.Name)
	}
	return buf, buf[start:len(buf):len(buf)]
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
	// idle recycles parser and resolver memory across models. It is a
	// plain list, not a sync.Pool: a pool is reachable from the runtime, so
	// the memory of a dropped Cache would outlive it by two collections,
	// and a project analysis leaves a few megabytes there.
	idleMu sync.Mutex
	idle   []*worker
	hits   atomic.Int64
	misses atomic.Int64
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
	sched    *schedule
}

// schedule is the dependency graph of the models, numbered in wave order,
// that AnalyzeProject runs: a model is ready once its parents in earlier
// waves are analysed, so no core waits for a whole wave to finish.
type schedule struct {
	order []string
	// wave numbers each model's wave.
	wave []int32
	pos  map[string]int32
	// kids[kidsOff[i]:kidsOff[i+1]] are the models waiting for model i;
	// indeg counts, per model, the parents it waits for.
	kidsOff, kids []int32
	indeg         []int32
}

func newSchedule(wv [][]string, pos map[string]int32, g depGraph) *schedule {
	s := &schedule{pos: make(map[string]int32, len(pos))}
	for w, wave := range wv {
		for _, id := range wave {
			s.pos[id] = int32(len(s.order))
			s.order = append(s.order, id)
			s.wave = append(s.wave, int32(w))
		}
	}
	// at maps a model's sorted number to its place in the schedule.
	at := make([]int32, len(pos))
	for id, i := range pos {
		at[i] = s.pos[id]
	}
	s.indeg = make([]int32, len(s.order))
	var from, to []int32
	for k, f := range g.from {
		// Exactly the parents a wave-by-wave run would have finished
		// (a cycle's models, in one last wave, do not see each other).
		t := g.to[k]
		if g.wave[f] >= g.wave[t] {
			continue
		}
		s.indeg[at[t]]++
		from = append(from, at[f])
		to = append(to, at[t])
	}
	s.kidsOff, s.kids = csr(len(s.order), from, to)
	return s
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
	pos := make(map[string]int32, len(models))
	for i, id := range models {
		pos[id] = int32(i)
	}
	children := make(map[string][]string, len(models))
	for _, id := range models {
		for _, p := range m.Nodes[id].DependsOn.Nodes {
			children[p] = append(children[p], id)
		}
	}
	wv, deps := waves(m, models, pos)
	r := <-riDone
	if r.panic != nil {
		panic(r.panic)
	}
	return &projectShape{ri: r.ri, waves: wv, children: children, sched: newSchedule(wv, pos, deps)}
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

// columnsNamesHash is namesHash of the names of cols, without listing them.
func columnsNamesHash(cols []ModelColumn) uint64 {
	var w fnvWriter
	w.init()
	w.writeU64(uint64(len(cols)))
	for _, c := range cols {
		w.writeU64(uint64(len(c.Name)))
		w.WriteString(c.Name)
	}
	return mix64(w.h)
}

type catalogCols struct {
	cols []string
	hash uint64
}

// reserve sizes an empty cache for n models, sparing a first analysis
// the cost of growing its maps step by step.
func (c *Cache) reserve(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) == 0 {
		c.m = make(map[uint64]*ModelLineage, n)
	}
	if len(c.sqlHashes) == 0 {
		c.sqlHashes = make(map[string]sqlMemo, n)
	}
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
	short map[string]shortRef
	keys  map[string][]string // node id -> its relation keys
	// catalog caches catalog column names per node id.
	catalog map[string]catalogCols
}

func relKeys(n *dbt.Node) []string { return appendRelKeys(nil, n) }

// appendRelKeys appends n's relation keys to keys.
func appendRelKeys(keys []string, n *dbt.Node) []string {
	if n.RelationName != "" {
		keys = append(keys, normRel(n.RelationName))
	}
	id := n.RelationIdentifier()
	if n.Database != "" && n.Schema != "" {
		full := normRel(n.Database + "." + n.Schema + "." + id)
		keys = append(keys, full)
		// When normalising changed nothing, schema.id is a suffix of
		// db.schema.id: share it rather than build it again.
		if isDotted3(full, n.Database, n.Schema, id) {
			if k := full[len(n.Database)+1:]; k == normRel(k) {
				return append(keys, k)
			}
		}
	}
	if n.Schema != "" {
		keys = append(keys, normRel(n.Schema+"."+id))
	}
	return keys
}

// isDotted3 reports whether s is a+"."+b+"."+c, without building it.
func isDotted3(s, a, b, c string) bool {
	if len(s) != len(a)+len(b)+len(c)+2 {
		return false
	}
	j := len(a) + 1 + len(b)
	return s[:len(a)] == a && s[len(a)] == '.' && s[len(a)+1:j] == b && s[j] == '.' && s[j+1:] == c
}

// shortRef is the node with a relation identifier, or many when several
// nodes share it.
type shortRef struct {
	id   string
	many bool
}

func newRelIndex(m *dbt.Manifest) *relIndex {
	all := m.AllNodes()
	ri := &relIndex{full: make(map[string]string, 3*len(all)), short: make(map[string]shortRef, len(all)),
		keys: make(map[string][]string, len(all)), catalog: map[string]catalogCols{}}
	// One array for every node's keys; capped sub-slices keep them apart.
	buf := make([]string, 0, 3*len(all))
	// Map order is fine: a key shared by several nodes goes to the least
	// id, as if the ids were visited in sorted order.
	for id, n := range all {
		switch n.ResourceType {
		case dbt.Model, dbt.Seed, dbt.Snapshot, dbt.Source:
		default:
			continue
		}
		start := len(buf)
		buf = appendRelKeys(buf, n)
		keys := buf[start:len(buf):len(buf)]
		ri.keys[id] = keys
		for _, k := range keys {
			if cur, ok := ri.full[k]; !ok || id < cur {
				ri.full[k] = id
			}
		}
		s := strings.ToLower(n.RelationIdentifier())
		if r, ok := ri.short[s]; ok {
			r.many = true
			ri.short[s] = r
		} else {
			ri.short[s] = shortRef{id: id}
		}
	}
	return ri
}

// match finds the node for a relation as written, preferring parents.
func (ri *relIndex) match(written string, parents []upstream) string {
	w := normRel(written)
	for _, u := range parents {
		for _, k := range u.keys {
			if k == w || len(k) > len(w) && k[len(k)-len(w)-1] == '.' && k[len(k)-len(w):] == w {
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
	if r, ok := ri.short[last]; ok && !r.many {
		return r.id
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
	cache.reserve(len(m.Nodes))
	sh := cache.shape(env)
	ri := sh.ri
	pl := &ProjectLineage{Dialect: dialect, Models: make(map[string]*ModelLineage, len(m.Nodes)), children: sh.children,
		Stats: ProjectStats{Reasons: map[string]int{}}}
	pl.Waves = sh.waves

	sc := sh.sched
	n := len(sc.order)
	results := make([]*ModelLineage, n)
	cached := make([]bool, n)
	// Every model is sent once, so the channel never blocks a sender.
	ready := make(chan int32, n)
	rem := make([]atomic.Int32, n)
	for i, d := range sc.indeg {
		rem[i].Store(d)
		if d == 0 {
			ready <- int32(i)
		}
	}
	var pending atomic.Int32
	pending.Store(int32(n))
	if n == 0 {
		close(ready)
	}
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var i int32
				select {
				case <-ctx.Done():
					return
				case j, ok := <-ready:
					if !ok {
						return
					}
					i = j
				}
				// A parent's result is read only after its analysis
				// ended: the atomic countdown and the channel order them.
				parent := func(pid string) (*ModelLineage, bool) {
					pi, ok := sc.pos[pid]
					if !ok || sc.wave[pi] >= sc.wave[i] || results[pi] == nil {
						return nil, false
					}
					return results[pi], true
				}
				results[i], cached[i] = analyzeModel(env, m.Nodes[sc.order[i]], dialect, ri, parent, cache)
				for _, k := range sc.kids[sc.kidsOff[i]:sc.kidsOff[i+1]] {
					if rem[k].Add(-1) == 0 {
						ready <- k
					}
				}
				if pending.Add(-1) == 0 {
					close(ready)
				}
			}
		}()
	}
	wg.Wait()
	for i, id := range sc.order {
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

// depGraph is the models' dependency graph numbered by sorted model
// order: edge k runs from model from[k] to model to[k] (deduplicated, no
// self-edges), and wave numbers each model's wave.
type depGraph struct {
	from, to, wave []int32
}

// waves orders models so every model comes after the models it reads.
// models are sorted and pos numbers them; the waves are computed over those
// numbers, so each wave comes out sorted.
func waves(m *dbt.Manifest, models []string, pos map[string]int32) ([][]string, depGraph) {
	n := len(models)
	indeg := make([]int32, n)
	var from, to []int32
	for i, id := range models {
		deps := m.Nodes[id].DependsOn.Nodes
		for j, p := range deps {
			pi, ok := pos[p]
			if !ok || p == id || slices.Contains(deps[:j], p) {
				continue
			}
			indeg[i]++
			from = append(from, pi)
			to = append(to, int32(i))
		}
	}
	off, kids := csr(n, from, to)
	waveOf := make([]int32, n)
	var cur []int32
	for i := range models {
		if indeg[i] == 0 {
			cur = append(cur, int32(i))
		}
	}
	var out [][]string
	placed := 0
	for len(cur) > 0 {
		slices.Sort(cur)
		wave := make([]string, len(cur))
		for k, i := range cur {
			wave[k] = models[i]
			waveOf[i] = int32(len(out))
		}
		out = append(out, wave)
		placed += len(cur)
		var nxt []int32
		for _, i := range cur {
			for _, k := range kids[off[i]:off[i+1]] {
				indeg[k]--
				if indeg[k] == 0 {
					nxt = append(nxt, k)
				}
			}
		}
		cur = nxt
	}
	if placed < n {
		// A cycle: analyse the rest last rather than dropping it.
		var rest []string
		for i, id := range models {
			if indeg[i] > 0 {
				rest = append(rest, id)
				waveOf[i] = int32(len(out))
			}
		}
		out = append(out, rest)
	}
	return out, depGraph{from: from, to: to, wave: waveOf}
}

type upstream struct {
	id   string
	keys []string
	cols []string
	// lineage, when set, is the analysed parent whose output names cols
	// are to be (filled in only if the model is analysed).
	lineage *ModelLineage
}

// analyzeModel analyses one model; parent returns the lineage of parents
// already analysed in this run.
func analyzeModel(env *dbt.Env, n *dbt.Node, dialect string, ri *relIndex, parent func(string) (*ModelLineage, bool), cache *Cache) (*ModelLineage, bool) {
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
		} else if ml, ok := parent(pid); ok {
			u.lineage, colsHash = ml, ml.namesHash
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
	d := sqlparse.LookupDialect(dialect)
	w := cache.getWorker()
	defer cache.putWorker(w)
	// The previous model's AST and resolution state are dead: reuse them.
	w.pp.Reset()
	w.mem.reset()
	w.ri, w.ups, w.memo = ri, ups, w.memo[:0]
	defer func() {
		// Let go of this project's index and upstreams while idle.
		w.ri, w.ups = nil, nil
		clear(w.memo)
		clear(w.schema)
		clear(w.names)
	}()
	match := w.match
	// Parents analysed in this run list their output names now, into
	// memory of the worker.
	names := w.names[:0]
	for i := range ups {
		if ups[i].lineage != nil {
			names, ups[i].cols = ups[i].lineage.appendNames(names)
		}
	}
	w.names = names
	// The upstream schema: relation keys are normalised already (relKeys),
	// and a later upstream with the same key wins, as in a Schema map.
	schema := w.schema[:0]
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
	w.schema = schema
	q, err := w.pp.Parse(d, n.CompiledCode)
	if err != nil {
		ml.Opaque, ml.OpaqueReason = true, "unparseable SQL: "+err.Error()
		ml.Structure = &ModelStructure{Unparseable: true, ParseError: err.Error()}
		ml.Structure.normalize()
		return finish(ml)
	}
	a := &w.an
	*a = analyzer{d: d, schemaList: schema, st: &ModelStructure{}, resMem: &w.mem, canon: w.canonFn}
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

func (c *Cache) getWorker() *worker {
	c.idleMu.Lock()
	defer c.idleMu.Unlock()
	if n := len(c.idle); n > 0 {
		w := c.idle[n-1]
		c.idle[n-1] = nil
		c.idle = c.idle[:n-1]
		return w
	}
	w := &worker{}
	w.canonFn = w.canon
	return w
}

// putWorker returns w for reuse; the list never holds more workers than
// ever ran at once.
func (c *Cache) putWorker(w *worker) {
	c.idleMu.Lock()
	c.idle = append(c.idle, w)
	c.idleMu.Unlock()
}

// worker is the reusable memory of one model analysis at a time.
type worker struct {
	pp  sqlparse.Parser
	mem resMem
	an  analyzer
	// The model being analysed: its project's relation index, its
	// upstreams and the schema built from them.
	ri     *relIndex
	ups    []upstream
	schema []schemaEntry
	// names holds the output names of the model's analysed parents.
	names []string
	// memo remembers the model's table matches: a model reads a few
	// tables, each named many times, and a short list costs less than a
	// map to build.
	memo []matched
	// canonFn is w.canon, bound once rather than once per model.
	canonFn func(string) string
}

type matched struct{ table, id string }

// maxMemo bounds the match memo of models that read many tables.
const maxMemo = 16

func (w *worker) match(table string) string {
	for _, m := range w.memo {
		if m.table == table {
			return m.id
		}
	}
	id := w.ri.match(table, w.ups)
	if len(w.memo) == maxMemo {
		// Many tables: forget the oldest half rather than search long.
		w.memo = append(w.memo[:0], w.memo[maxMemo/2:]...)
	}
	w.memo = append(w.memo, matched{table, id})
	return id
}

// canon names a table by its node id when it matches one.
func (w *worker) canon(table string) string {
	if id := w.match(table); id != "" {
		return id
	}
	return normRel(table)
}

func finish(ml *ModelLineage) *ModelLineage {
	if ml.fullyKnown() {
		ml.namesHash = columnsNamesHash(ml.Columns)
	} else {
		// Unknown columns: downstream must not treat the list as complete.
		ml.namesHash = namesHash(nil)
	}
	if ml.Structure == nil {
		ml.Structure = (&ModelStructure{}).normalize()
	}
	return ml
}
