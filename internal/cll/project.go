// Project lineage: the per-model result types, and AnalyzeProject, which runs
// every model of a project through the schedule on a pool of workers.

package cll

import (
	"context"
	"fmt"
	"runtime"
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
	// InternalError marks an opaque model made so by a bug of Ripple's
	// parser or resolver (a recovered panic), not by its SQL.
	InternalError bool     `json:"internal_error,omitempty"`
	Parents       []string `json:"parents"`
	Unmatched     []string `json:"unmatched_relations,omitempty"`
	RowDigest     Digest   `json:"row_digest"`
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
	// colIndex finds a column of a wide model by name, built on first use
	// (lineage is shared between goroutines, hence atomic).
	colIndex atomic.Pointer[nameIndex]
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
	if len(m.Columns) >= indexMin {
		ix := m.colIndex.Load()
		if ix == nil {
			ix = newNameIndex(m.Columns, func(c ModelColumn) string { return c.Name })
			m.colIndex.Store(ix)
		}
		if i, final := ix.lookup(name); final {
			if i < 0 {
				return nil, false
			}
			return &m.Columns[i], true
		}
	}
	for i := range m.Columns {
		if equalFold(m.Columns[i].Name, name) {
			return &m.Columns[i], true
		}
	}
	return nil, false
}

// ProjectStats summarises an AnalyzeProject run.
type ProjectStats struct {
	Models   int            `json:"models"`
	Opaque   int            `json:"opaque"`
	Analyzed int            `json:"analyzed"`
	Cached   int            `json:"cached"`
	Reasons  map[string]int `json:"opaque_reasons"`
	// InternalErrors counts the opaque models made so by a bug of Ripple's
	// parser or resolver (a recovered panic). They are among Opaque (their
	// lineage is unknown) under an "internal error ..." reason, never under
	// "unparseable SQL": a bug is not reported as the user's SQL.
	InternalErrors int `json:"internal_errors"`
}

// count adds one model's result to the statistics.
func (s *ProjectStats) count(ml *ModelLineage, cached bool) {
	if ml.trivial {
		// Python models and models without SQL: nothing to analyse.
	} else if cached {
		s.Cached++
	} else {
		s.Analyzed++
	}
	if ml.Opaque {
		s.Opaque++
		s.Reasons[reasonClass(ml.OpaqueReason)]++
	}
	if ml.InternalError {
		s.InternalErrors++
	}
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
		pl.Stats.count(results[i], cached[i])
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
