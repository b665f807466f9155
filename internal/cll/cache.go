// The content-keyed lineage cache: model lineage by a hash of (dialect, SQL,
// upstream relations and columns), project shapes by a hash of the manifest's
// relations and dependencies, and the idle workers' memory.

package cll

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/ripple-data/ripple/internal/dbt"
)

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
