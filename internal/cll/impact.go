// Column impact: traversals of the column graph downstream from changed
// columns (Impact, Downstream) and upstream (Upstream).

package cll

import (
	"slices"
	"sort"
	"strings"
)

// reads lists the columns of node the model ml reads, in lineage order,
// without case-insensitive repeats.
func reads(ml *ModelLineage, node string) []string {
	out := []string{}
	add := func(d ColumnDep) {
		nc := d.nodeColumn()
		if nc.Node != node {
			return
		}
		for _, c := range out {
			if equalFold(c, nc.Column) {
				return
			}
		}
		out = append(out, nc.Column)
	}
	for _, c := range ml.Columns {
		for _, d := range c.Deps {
			add(d)
		}
	}
	for _, d := range ml.RowDeps {
		add(d)
	}
	return out
}

// ImpactedColumn is a downstream column reached from a changed column.
type ImpactedColumn struct {
	Node   string `json:"node"`
	Column string `json:"column"`
	// Reason is "value" (computed from a changed column), "row_set" (a
	// changed column filters, joins or groups its rows) or "opaque".
	Reason string `json:"reason"`
	// Via is the previous hop and Root the changed column the chain starts
	// from; following Via through the result gives the evidence chain
	// (ImpactResult.Chain does it). Depth counts the hops.
	Via   NodeColumn `json:"via"`
	Root  NodeColumn `json:"root"`
	Depth int        `json:"depth"`
}

// ImpactedModel summarises the impact on one model.
type ImpactedModel struct {
	Node    string   `json:"node"`
	Columns []string `json:"columns"`
	Opaque  bool     `json:"opaque"`
}

// UnreachedModel reads a changed model but none of the changed columns.
type UnreachedModel struct {
	Node string `json:"node"`
	// Reads are the columns of the changed model it does use.
	Reads []string `json:"reads"`
}

// ImpactResult is the downstream impact of changed columns.
type ImpactResult struct {
	Changed    []NodeColumn     `json:"changed"`
	Columns    []ImpactedColumn `json:"columns"`
	Models     []ImpactedModel  `json:"models"`
	NotReached []UnreachedModel `json:"not_reached"`
}

// Chain returns the evidence chain from a changed column to c (inclusive),
// or nil when c was not reached.
func (r *ImpactResult) Chain(c NodeColumn) []NodeColumn {
	at := make(map[NodeColumn]int, len(r.Columns))
	for i, ic := range r.Columns {
		at[NodeColumn{Node: ic.Node, Column: ic.Column}.key()] = i
	}
	i, ok := at[c.key()]
	if !ok {
		return nil
	}
	chain := []NodeColumn{c}
	for hops := 0; hops <= len(r.Columns); hops++ {
		ic := r.Columns[i]
		chain = append(chain, ic.Via)
		j, ok := at[ic.Via.key()]
		if !ok || ic.Depth <= 1 {
			break
		}
		i = j
	}
	for a, b := 0, len(chain)-1; a < b; a, b = a+1, b-1 {
		chain[a], chain[b] = chain[b], chain[a]
	}
	return chain
}

// impactScratch is per-query working memory recycled between Impact calls,
// so a query allocates little beyond its result. Every slice is indexed by
// column, node or row-set group of one graphIndex; Impact leaves them all
// zero (prev: -1) again.
type impactScratch struct {
	// vis is the traversal state of every column (prev -1: unvisited),
	// one record per column so that a visit touches one cache line.
	vis []visit
	// queue is the traversal queue's memory.
	queue []int32
	// nodeDone marks nodes whose opaque readers were handled; rowDone
	// row-set groups already pushed.
	nodeDone, rowDone []bool
	// perCount counts reached columns per node; fill is each node's next
	// slot in the shared names array.
	perCount, fill []int32
	// models are the nodes with a reached column.
	models []int32
}

// visit is how a traversal reached a column: from column prev (-2 for a
// changed column), starting at column root, after depth hops.
type visit struct {
	prev, root, depth int32
	via               uint8
}

func newImpactScratch(g *graphIndex) *impactScratch {
	sc := &impactScratch{vis: make([]visit, len(g.colName)),
		nodeDone: make([]bool, len(g.nodes)), rowDone: make([]bool, len(g.outsOff)-1), perCount: make([]int32, len(g.nodes)), fill: make([]int32, len(g.nodes))}
	for i := range sc.vis {
		sc.vis[i].prev = -1
	}
	return sc
}

// Impact follows lineage downstream from the changed columns. Opaque
// models are always treated as reached (their SQL cannot rule impact out).
// A changed column named "*" stands for the node as a whole: its row set
// changed (or, for a node without lineage, anything may have), which
// reaches every model that reads it, even one reading no column of it
// (SELECT count(*) FROM it), and, through them, the models reading theirs.
func (p *ProjectLineage) Impact(changed []NodeColumn) *ImpactResult {
	g := p.index()
	res := &ImpactResult{Changed: changed, Columns: []ImpactedColumn{}, Models: []ImpactedModel{}, NotReached: []UnreachedModel{}}
	sc, _ := p.scratch.Get().(*impactScratch)
	if sc == nil || len(sc.vis) != len(g.colName) {
		sc = newImpactScratch(g)
	}
	// queue lists the changed columns, then the reached ones in visiting
	// order: every column whose state this query sets.
	queue := sc.queue[:0]
	defer func() {
		// Reset only what this query touched, then recycle.
		for _, i := range queue {
			sc.vis[i].prev = -1
			sc.nodeDone[g.nodeOf[i]] = false
		}
		for _, ni := range sc.models {
			sc.perCount[ni] = 0
		}
		clear(sc.rowDone)
		sc.models = sc.models[:0]
		sc.queue = queue[:0]
		p.scratch.Put(sc)
	}()
	vis := sc.vis
	nodeDone, rowDone, perCount := sc.nodeDone, sc.rowDone, sc.perCount
	changedNodes := map[string]bool{}
	for _, c := range changed {
		changedNodes[c.Node] = true
		if i := g.lookup(c); i >= 0 && vis[i].prev == -1 {
			vis[i] = visit{prev: -2, root: i}
			queue = append(queue, i)
		}
	}
	seeds := len(queue)
	push := func(to, from int32, reason uint8) {
		if vis[to].prev != -1 {
			return
		}
		vis[to] = visit{prev: from, root: vis[from].root, depth: vis[from].depth + 1, via: reason}
		queue = append(queue, to)
	}
	var opaqueDone map[string]bool
	var extra []ImpactedColumn // opaque models without known columns
	for head := 0; head < len(queue); head++ {
		cur := queue[head]
		for _, e := range g.downOf(cur) {
			if e.via != viaRowSet {
				push(e.to, cur, e.via)
				continue
			}
			// Once a model's row-set group is pushed, all its columns
			// are reached: pushing it again changes nothing.
			if rowDone[e.to] {
				continue
			}
			rowDone[e.to] = true
			for _, o := range g.outsOf(e.to) {
				push(o, cur, viaRowSet)
			}
			if r := g.rowsOf[e.to]; r >= 0 {
				push(r, cur, viaRowSet)
			}
		}
		ni := g.nodeOf[cur]
		if nodeDone[ni] {
			continue
		}
		nodeDone[ni] = true
		for _, kid := range g.opaqueKids[ni] {
			if opaqueDone[kid] {
				continue
			}
			if opaqueDone == nil {
				opaqueDone = map[string]bool{}
			}
			opaqueDone[kid] = true
			// An opaque reader may use anything it reads: all its columns,
			// and every column others read from it, are reached.
			if ki, ok := g.nodeIDs[kid]; ok {
				for _, i := range g.colsOf(ki) {
					push(i, cur, viaOpaque)
				}
			}
			if len(p.Models[kid].Columns) == 0 {
				extra = append(extra, ImpactedColumn{Node: kid, Column: "*", Reason: "opaque", Depth: int(vis[cur].depth) + 1, Via: g.col(cur), Root: g.col(vis[cur].root)})
			}
		}
	}
	// The pseudo columns "*" of relations read (their rows) carry the
	// traversal but are not columns to report.
	order := queue[seeds:]
	for k, i := range order {
		if !g.isReal(i) {
			shown := slices.Clone(order[:k])
			for _, j := range order[k+1:] {
				if g.isReal(j) {
					shown = append(shown, j)
				}
			}
			order = shown
			break
		}
	}
	res.Columns = make([]ImpactedColumn, len(order), len(order)+len(extra))
	// Count the reached columns per node first, so that every node's
	// column list is an exact slice of one shared array.
	models := sc.models
	for _, i := range order {
		ni := g.nodeOf[i]
		if perCount[ni] == 0 {
			models = append(models, ni)
		}
		perCount[ni]++
	}
	sc.models = models
	// Sort by name through the nodes' ranks: integers sort fastest.
	for k, ni := range models {
		models[k] = g.nodeRank[ni]
	}
	slices.Sort(models)
	for k, r := range models {
		models[k] = g.byRank[r]
	}
	// Each node's column names are an exact, capped slice of one shared
	// array; nodes take their ranges in model order.
	names := make([]string, len(order))
	fill := sc.fill
	var off int32
	for _, ni := range models {
		fill[ni] = off
		off += perCount[ni]
	}
	for k, i := range order {
		nc := g.col(i)
		// Field by field: assigning a whole struct literal copies it with
		// a bulk write barrier, several times slower while the collector
		// runs, which a result this size makes likely.
		rc := &res.Columns[k]
		v := &vis[i]
		rc.Node, rc.Column, rc.Reason, rc.Depth = nc.Node, nc.Column, viaNames[v.via], int(v.depth)
		rc.Via, rc.Root = g.col(v.prev), g.col(v.root)
		ni := g.nodeOf[i]
		names[fill[ni]] = nc.Column
		fill[ni]++
	}
	nodeNames := func(ni int32) []string {
		end := fill[ni]
		start := end - perCount[ni]
		return names[start:end:end]
	}
	// reached reports whether a model has a reached column.
	var reachedExtra map[string]bool
	reached := func(node string) bool {
		if ni, ok := g.nodeIDs[node]; ok && perCount[ni] > 0 {
			return true
		}
		return reachedExtra[node]
	}
	var extraModels []string
	var perExtra map[string][]string
	for _, e := range extra {
		if perExtra == nil {
			reachedExtra, perExtra = map[string]bool{}, map[string][]string{}
		}
		res.Columns = append(res.Columns, e)
		if !reached(e.Node) {
			extraModels = append(extraModels, e.Node)
			reachedExtra[e.Node] = true
		}
		perExtra[e.Node] = append(perExtra[e.Node], e.Column)
	}
	sort.Strings(extraModels)
	res.Models = make([]ImpactedModel, 0, len(models)+len(extraModels))
	addModel := func(m string) {
		ml := p.Models[m]
		cols := perExtra[m]
		if ni, ok := g.nodeIDs[m]; ok {
			cols = append(nodeNames(ni), cols...)
		}
		res.Models = append(res.Models, ImpactedModel{Node: m, Columns: cols, Opaque: ml != nil && ml.Opaque})
	}
	// Merge the two sorted model lists; a model is in at most one.
	for k := 0; k < len(models) || len(extraModels) > 0; {
		if k < len(models) && (len(extraModels) == 0 || g.nodes[models[k]] < extraModels[0]) {
			ni := models[k]
			k++
			m := g.nodes[ni]
			cols := nodeNames(ni)
			if e := perExtra[m]; e != nil {
				cols = append(cols, e...)
			}
			ml := p.Models[m]
			res.Models = append(res.Models, ImpactedModel{Node: m, Columns: cols, Opaque: ml != nil && ml.Opaque})
			continue
		}
		addModel(extraModels[0])
		extraModels = extraModels[1:]
	}
	// Readers of a changed model that no changed column reached.
	cn := make([]string, 0, len(changedNodes))
	for c := range changedNodes {
		cn = append(cn, c)
	}
	sort.Strings(cn)
	listed := map[string]bool{}
	for _, c := range cn {
		var kids []string
		if ni, ok := g.nodeIDs[c]; ok {
			for _, mi := range g.readers[g.readersOff[ni]:g.readersOff[ni+1]] {
				kids = append(kids, g.models[mi])
			}
		}
		// g.models is in name order, so the readers are sorted.
		readers := kids[:len(kids):len(kids)]
		for _, k := range p.children[c] {
			if _, ok := slices.BinarySearch(readers, k); !ok && p.Models[k] != nil {
				kids = append(kids, k)
			}
		}
		sort.Strings(kids)
		for _, k := range kids {
			if reached(k) || listed[k] || changedNodes[k] {
				continue
			}
			listed[k] = true
			res.NotReached = append(res.NotReached, UnreachedModel{Node: k, Reads: reads(p.Models[k], c)})
		}
	}
	return res
}

// Downstream returns every column computed (or row-shaped) from c, transitively.
func (p *ProjectLineage) Downstream(c NodeColumn) []NodeColumn {
	g := p.index()
	return g.traverse(c, g.downNext)
}

// Upstream returns every column c is computed from, transitively (value
// lineage only; row-shaping inputs are in ModelLineage.RowDeps).
func (p *ProjectLineage) Upstream(c NodeColumn) []NodeColumn {
	g := p.index()
	return g.traverse(c, g.upNext)
}

// downNext visits the columns one step downstream of column i: those
// computed from it and, through a row-set edge, every output column of a
// model whose rows it shapes (and that model as a whole).
func (g *graphIndex) downNext(i int32, visit func(int32)) {
	for _, e := range g.downOf(i) {
		if e.via != viaRowSet {
			visit(e.to)
			continue
		}
		for _, o := range g.outsOf(e.to) {
			visit(o)
		}
		if r := g.rowsOf[e.to]; r >= 0 {
			visit(r)
		}
	}
}

// upNext visits the columns column i is computed from.
func (g *graphIndex) upNext(i int32, visit func(int32)) {
	for _, u := range g.upOf(i) {
		visit(u)
	}
}

func (g *graphIndex) traverse(start NodeColumn, next func(int32, func(int32))) []NodeColumn {
	s := g.lookup(start)
	if s < 0 {
		return []NodeColumn{}
	}
	seen := map[int32]bool{s: true}
	queue := []int32{s}
	out := []NodeColumn{}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		next(cur, func(i int32) {
			if !seen[i] {
				seen[i] = true
				if g.isReal(i) {
					out = append(out, g.col(i))
				}
				queue = append(queue, i)
			}
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Node != out[j].Node {
			return out[i].Node < out[j].Node
		}
		return strings.ToLower(out[i].Column) < strings.ToLower(out[j].Column)
	})
	return out
}
