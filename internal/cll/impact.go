package cll

import (
	"sort"
	"strings"
)

// edge is one downstream lineage step.
type edge struct {
	to  NodeColumn
	via string // "value" or "row_set"
}

// graphIndex is the reverse column graph, built on first use so that
// AnalyzeProject stays cheap when nobody asks for impact.
type graphIndex struct {
	down map[NodeColumn][]edge
	up   map[NodeColumn][]NodeColumn
	// readers lists, per upstream node, the columns each reading model uses.
	readers map[string]map[string][]string
	// nodeCols lists the referenced columns of every upstream node.
	nodeCols map[string][]NodeColumn
}

func (p *ProjectLineage) index() *graphIndex {
	p.once.Do(func() {
		g := &graphIndex{down: map[NodeColumn][]edge{}, up: map[NodeColumn][]NodeColumn{},
			readers: map[string]map[string][]string{}, nodeCols: map[string][]NodeColumn{}}
		ids := make([]string, 0, len(p.Models))
		for id := range p.Models {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		seenCol := map[NodeColumn]bool{}
		note := func(from NodeColumn, reader string) {
			k := from.key()
			if !seenCol[k] {
				seenCol[k] = true
				g.nodeCols[from.Node] = append(g.nodeCols[from.Node], from)
			}
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
			for _, c := range ml.Columns {
				to := NodeColumn{Node: id, Column: c.Name}
				for _, d := range c.Deps {
					from := d.nodeColumn()
					g.down[from.key()] = append(g.down[from.key()], edge{to: to, via: "value"})
					g.up[to.key()] = append(g.up[to.key()], from)
					note(from, id)
				}
			}
			for _, d := range ml.RowDeps {
				from := d.nodeColumn()
				for _, c := range ml.Columns {
					g.down[from.key()] = append(g.down[from.key()], edge{to: NodeColumn{Node: id, Column: c.Name}, via: "row_set"})
				}
				note(from, id)
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
	// Evidence is the chain of columns from a changed column to this one.
	Evidence []NodeColumn `json:"evidence"`
	Depth    int          `json:"depth"`
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

type visit struct {
	prev   NodeColumn
	reason string
	depth  int
	root   bool
}

// Impact follows lineage downstream from the changed columns. Opaque
// models are always treated as reached (their SQL cannot rule impact out).
func (p *ProjectLineage) Impact(changed []NodeColumn) *ImpactResult {
	g := p.index()
	res := &ImpactResult{Changed: changed, Columns: []ImpactedColumn{}, Models: []ImpactedModel{}, NotReached: []UnreachedModel{}}
	seen := map[NodeColumn]*visit{}
	var order []NodeColumn
	queue := make([]NodeColumn, 0, len(changed))
	display := map[NodeColumn]NodeColumn{}
	changedNodes := map[string]bool{}
	for _, c := range changed {
		k := c.key()
		if seen[k] == nil {
			seen[k] = &visit{root: true}
			display[k] = c
			queue = append(queue, k)
		}
		changedNodes[c.Node] = true
	}
	reachedModel := map[string]bool{}
	opaqueDone := map[string]bool{}
	push := func(to NodeColumn, from NodeColumn, reason string) {
		k := to.key()
		if seen[k] != nil {
			return
		}
		seen[k] = &visit{prev: from, reason: reason, depth: seen[from].depth + 1}
		display[k] = to
		order = append(order, k)
		queue = append(queue, k)
	}
	reachOpaque := func(node string, from NodeColumn) {
		if opaqueDone[node] {
			return
		}
		opaqueDone[node] = true
		reachedModel[node] = true
		ml := p.Models[node]
		if ml != nil {
			for _, c := range ml.Columns {
				push(NodeColumn{Node: node, Column: c.Name}, from, "opaque")
			}
		}
		// Columns of an opaque model that others read are reached too.
		for _, nc := range g.nodeCols[node] {
			push(nc, from, "opaque")
		}
		if ml == nil || len(ml.Columns) == 0 {
			push(NodeColumn{Node: node, Column: "*"}, from, "opaque")
		}
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, e := range g.down[cur] {
			push(e.to, cur, e.via)
			reachedModel[e.to.Node] = true
		}
		for _, kid := range p.children[cur.Node] {
			if ml := p.Models[kid]; ml != nil && ml.Opaque {
				reachOpaque(kid, cur)
			}
		}
	}
	perModel := map[string][]string{}
	for _, k := range order {
		v := seen[k]
		nc := display[k]
		ic := ImpactedColumn{Node: nc.Node, Column: nc.Column, Reason: v.reason, Depth: v.depth}
		// Walk back to a changed column for the evidence chain.
		chain := []NodeColumn{nc}
		for cur := k; !seen[cur].root && len(chain) < 1000; {
			cur = seen[cur].prev
			chain = append(chain, display[cur])
		}
		for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
			chain[i], chain[j] = chain[j], chain[i]
		}
		ic.Evidence = chain
		res.Columns = append(res.Columns, ic)
		perModel[nc.Node] = append(perModel[nc.Node], nc.Column)
	}
	nodes := make([]string, 0, len(perModel))
	for n := range perModel {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for _, n := range nodes {
		ml := p.Models[n]
		res.Models = append(res.Models, ImpactedModel{Node: n, Columns: perModel[n], Opaque: ml != nil && ml.Opaque})
	}
	// Readers of a changed model that no changed column reached.
	cn := make([]string, 0, len(changedNodes))
	for n := range changedNodes {
		cn = append(cn, n)
	}
	sort.Strings(cn)
	listed := map[string]bool{}
	for _, n := range cn {
		readers := g.readers[n]
		var kids []string
		for k := range readers {
			kids = append(kids, k)
		}
		for _, k := range p.children[n] {
			if _, ok := readers[k]; !ok && p.Models[k] != nil {
				kids = append(kids, k)
			}
		}
		sort.Strings(kids)
		for _, k := range kids {
			if perModel[k] != nil || reachedModel[k] || listed[k] || changedNodes[k] {
				continue
			}
			listed[k] = true
			reads := append([]string{}, readers[k]...)
			res.NotReached = append(res.NotReached, UnreachedModel{Node: k, Reads: reads})
		}
	}
	return res
}

// Downstream returns every column computed (or row-shaped) from c, transitively.
func (p *ProjectLineage) Downstream(c NodeColumn) []NodeColumn {
	g := p.index()
	return traverse(c, func(k NodeColumn) []NodeColumn {
		es := g.down[k]
		out := make([]NodeColumn, len(es))
		for i, e := range es {
			out[i] = e.to
		}
		return out
	})
}

// Upstream returns every column c is computed from, transitively (value
// lineage only; row-shaping inputs are in ModelLineage.RowDeps).
func (p *ProjectLineage) Upstream(c NodeColumn) []NodeColumn {
	g := p.index()
	return traverse(c, func(k NodeColumn) []NodeColumn { return g.up[k] })
}

func traverse(start NodeColumn, next func(NodeColumn) []NodeColumn) []NodeColumn {
	seen := map[NodeColumn]bool{start.key(): true}
	queue := []NodeColumn{start.key()}
	var out []NodeColumn
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, n := range next(cur) {
			k := n.key()
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, n)
			queue = append(queue, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Node != out[j].Node {
			return out[i].Node < out[j].Node
		}
		return strings.ToLower(out[i].Column) < strings.ToLower(out[j].Column)
	})
	return out
}
