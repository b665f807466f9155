// Analysis of one model: its upstream schema and cache key, the resolver run
// by a worker, and the mapping of physical deps back to manifest nodes.

package cll

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/sqlparse"
)

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
		ml.Opaque = true
		ml.OpaqueReason, ml.InternalError = parseFailure(err)
		ml.Structure = &ModelStructure{Unparseable: !ml.InternalError, ParseError: err.Error()}
		ml.Structure.normalize()
		return finish(ml)
	}
	a := &w.an
	*a = analyzer{d: d, schemaList: schema, st: &ModelStructure{}, resMem: &w.mem, canon: w.canonFn}
	res := runAnalysis(a, q)
	rel := res.rel
	ml.Opaque, ml.OpaqueReason, ml.InternalError = res.opaqueReason != "", res.opaqueReason, res.internal
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
