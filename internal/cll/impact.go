package cll

import (
	"sort"
	"strings"
)

// Reasons a column is reached.
const (
	viaValue  uint8 = 1
	viaRowSet uint8 = 2
	viaOpaque uint8 = 3
)

var viaNames = [...]string{"", "value", "row_set", "opaque"}

type edge struct {
	to  int32
	via uint8
}

// graphIndex is the column graph with columns numbered, built on first use
// so that AnalyzeProject stays cheap when nobody asks for impact, and so
// that traversals run over integers rather than string-keyed maps.
type graphIndex struct {
	ids  map[NodeColumn]int32 // key() form
	cols []NodeColumn         // display form
	// nodeOf numbers each column's node; nodes names them.
	nodeOf  []int32
	nodes   []string
	nodeIDs map[string]int32
	down    [][]edge
	up      [][]int32
	// nodeCols lists every indexed column of a node.
	nodeCols map[string][]int32
	// readers lists, per upstream node, the columns each reading model uses.
	readers map[string]map[string][]string
}

func (g *graphIndex) id(nc NodeColumn) int32 {
	k := nc.key()
	if i, ok := g.ids[k]; ok {
		return i
	}
	i := int32(len(g.cols))
	g.ids[k] = i
	g.cols = append(g.cols, nc)
	ni, ok := g.nodeIDs[nc.Node]
	if !ok {
		ni = int32(len(g.nodes))
		g.nodeIDs[nc.Node] = ni
		g.nodes = append(g.nodes, nc.Node)
	}
	g.nodeOf = append(g.nodeOf, ni)
	g.down = append(g.down, nil)
	g.up = append(g.up, nil)
	g.nodeCols[nc.Node] = append(g.nodeCols[nc.Node], i)
	return i
}

func (p *ProjectLineage) index() *graphIndex {
	p.once.Do(func() {
		g := &graphIndex{ids: map[NodeColumn]int32{}, nodeIDs: map[string]int32{}, nodeCols: map[string][]int32{}, readers: map[string]map[string][]string{}}
		ids := make([]string, 0, len(p.Models))
		for id := range p.Models {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		note := func(from NodeColumn, reader string) {
			r := g.readers[from.Node]
			if r == nil {
				r = map[string][]string{}
				g.readers[from.Node] = r
			}
			for _, c := range r[reader] {
				if equalFold(c, from.Column) {
					return
				}
			}
			r[reader] = append(r[reader], from.Column)
		}
		for _, id := range ids {
			ml := p.Models[id]
			outs := make([]int32, len(ml.Columns))
			for i, c := range ml.Columns {
				outs[i] = g.id(NodeColumn{Node: id, Column: c.Name})
			}
			for i, c := range ml.Columns {
				for _, d := range c.Deps {
					from := g.id(d.nodeColumn())
					g.down[from] = append(g.down[from], edge{to: outs[i], via: viaValue})
					g.up[outs[i]] = append(g.up[outs[i]], from)
					note(d.nodeColumn(), id)
				}
			}
			for _, d := range ml.RowDeps {
				from := g.id(d.nodeColumn())
				for _, o := range outs {
					g.down[from] = append(g.down[from], edge{to: o, via: viaRowSet})
				}
				note(d.nodeColumn(), id)
			}
		}
		p.idx = g
	})
	return p.idx
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
// so a query allocates little beyond its result.
type impactScratch struct {
	prev, root, depth []int32
	via               []uint8
	queue, touched    []int32
}

func newImpactScratch(n int) *impactScratch {
	sc := &impactScratch{prev: make([]int32, n), root: make([]int32, n), depth: make([]int32, n), via: make([]uint8, n)}
	for i := range sc.prev {
		sc.prev[i] = -1
	}
	return sc
}

// Impact follows lineage downstream from the changed columns. Opaque
// models are always treated as reached (their SQL cannot rule impact out).
func (p *ProjectLineage) Impact(changed []NodeColumn) *ImpactResult {
	g := p.index()
	res := &ImpactResult{Changed: changed, Columns: []ImpactedColumn{}, Models: []ImpactedModel{}, NotReached: []UnreachedModel{}}
	sc, _ := p.scratch.Get().(*impactScratch)
	if sc == nil || len(sc.prev) != len(g.cols) {
		sc = newImpactScratch(len(g.cols))
	}
	defer func() {
		// Reset only what this query touched, then recycle.
		for _, i := range sc.touched {
			sc.prev[i] = -1
		}
		sc.touched = sc.touched[:0]
		p.scratch.Put(sc)
	}()
	prev, root, via, depth := sc.prev, sc.root, sc.via, sc.depth
	queue := sc.queue
	var order []int32
	changedNodes := map[string]bool{}
	for _, c := range changed {
		changedNodes[c.Node] = true
		if i, ok := g.ids[c.key()]; ok && prev[i] == -1 {
			prev[i], root[i], depth[i] = -2, i, 0
			sc.touched = append(sc.touched, i)
			queue = append(queue, i)
		}
	}
	push := func(to, from int32, reason uint8) {
		if prev[to] != -1 {
			return
		}
		prev[to], root[to], via[to], depth[to] = from, root[from], reason, depth[from]+1
		order = append(order, to)
		queue = append(queue, to)
		sc.touched = append(sc.touched, to)
	}
	nodeDone := make([]bool, len(g.nodes))
	opaqueDone := map[string]bool{}
	var extra []ImpactedColumn // opaque models without known columns
	for head := 0; head < len(queue); head++ {
		cur := queue[head]
		for _, e := range g.down[cur] {
			push(e.to, cur, e.via)
		}
		if nodeDone[g.nodeOf[cur]] {
			continue
		}
		nodeDone[g.nodeOf[cur]] = true
		for _, kid := range p.children[g.cols[cur].Node] {
			ml := p.Models[kid]
			if ml == nil || !ml.Opaque || opaqueDone[kid] {
				continue
			}
			opaqueDone[kid] = true
			// An opaque reader may use anything it reads: all its columns,
			// and every column others read from it, are reached.
			for _, i := range g.nodeCols[kid] {
				push(i, cur, viaOpaque)
			}
			if len(ml.Columns) == 0 {
				extra = append(extra, ImpactedColumn{Node: kid, Column: "*", Reason: "opaque", Depth: int(depth[cur]) + 1, Via: g.cols[cur], Root: g.cols[root[cur]]})
			}
		}
	}
	sc.queue = queue[:0]
	res.Columns = make([]ImpactedColumn, len(order), len(order)+len(extra))
	// Count the reached columns per node first, so that every node's
	// column list is an exact slice of one shared array.
	perCount := make([]int32, len(g.nodes))
	var models []string
	for _, i := range order {
		ni := g.nodeOf[i]
		if perCount[ni] == 0 {
			models = append(models, g.nodes[ni])
		}
		perCount[ni]++
	}
	perNode := make([][]string, len(g.nodes))
	names := make([]string, len(order))
	for ni, n := range perCount {
		if n > 0 {
			perNode[ni] = names[:0:n]
			names = names[n:]
		}
	}
	for k, i := range order {
		nc := g.cols[i]
		res.Columns[k] = ImpactedColumn{Node: nc.Node, Column: nc.Column, Reason: viaNames[via[i]], Depth: int(depth[i]), Via: g.cols[prev[i]], Root: g.cols[root[i]]}
		ni := g.nodeOf[i]
		perNode[ni] = append(perNode[ni], nc.Column)
	}
	// reached reports whether a model has a reached column.
	reachedExtra := map[string]bool{}
	reached := func(node string) bool {
		if ni, ok := g.nodeIDs[node]; ok && perCount[ni] > 0 {
			return true
		}
		return reachedExtra[node]
	}
	perExtra := map[string][]string{}
	for _, e := range extra {
		res.Columns = append(res.Columns, e)
		if !reached(e.Node) {
			models = append(models, e.Node)
			reachedExtra[e.Node] = true
		}
		perExtra[e.Node] = append(perExtra[e.Node], e.Column)
	}
	sort.Strings(models)
	for _, m := range models {
		ml := p.Models[m]
		cols := perExtra[m]
		if ni, ok := g.nodeIDs[m]; ok {
			cols = append(perNode[ni], cols...)
		}
		res.Models = append(res.Models, ImpactedModel{Node: m, Columns: cols, Opaque: ml != nil && ml.Opaque})
	}
	// Readers of a changed model that no changed column reached.
	cn := make([]string, 0, len(changedNodes))
	for c := range changedNodes {
		cn = append(cn, c)
	}
	sort.Strings(cn)
	listed := map[string]bool{}
	for _, c := range cn {
		readers := g.readers[c]
		var kids []string
		for k := range readers {
			kids = append(kids, k)
		}
		for _, k := range p.children[c] {
			if _, ok := readers[k]; !ok && p.Models[k] != nil {
				kids = append(kids, k)
			}
		}
		sort.Strings(kids)
		for _, k := range kids {
			if reached(k) || listed[k] || changedNodes[k] {
				continue
			}
			listed[k] = true
			res.NotReached = append(res.NotReached, UnreachedModel{Node: k, Reads: append([]string{}, readers[k]...)})
		}
	}
	return res
}

// Downstream returns every column computed (or row-shaped) from c, transitively.
func (p *ProjectLineage) Downstream(c NodeColumn) []NodeColumn {
	g := p.index()
	return g.traverse(c, func(i int32, visit func(int32)) {
		for _, e := range g.down[i] {
			visit(e.to)
		}
	})
}

// Upstream returns every column c is computed from, transitively (value
// lineage only; row-shaping inputs are in ModelLineage.RowDeps).
func (p *ProjectLineage) Upstream(c NodeColumn) []NodeColumn {
	g := p.index()
	return g.traverse(c, func(i int32, visit func(int32)) {
		for _, u := range g.up[i] {
			visit(u)
		}
	})
}

func (g *graphIndex) traverse(start NodeColumn, next func(int32, func(int32))) []NodeColumn {
	s, ok := g.ids[start.key()]
	if !ok {
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
				out = append(out, g.cols[i])
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
