package dbt

import (
	"slices"
	"sort"
)

// Unlimited is the depth that makes Ancestors and Descendants walk the whole graph.
const Unlimited = -1

// Graph is the dependency graph over the union of the base and current
// builds: every enabled entry of the current manifest plus the base-only
// entries (so removed nodes stay reachable through graph operators). When an
// id exists in both, the current version wins, and so do its edges. Edges come
// from depends_on.nodes; edges to ids outside the union are dropped.
// A Graph is immutable and safe for concurrent use.
type Graph struct {
	base, current *Manifest
	nodes         map[string]*Node
	inBase        map[string]bool
	inCurrent     map[string]bool
	parents       map[string][]string
	children      map[string][]string
	ids           []string
}

// NewGraph builds the union graph. Either manifest may be nil.
func NewGraph(base, current *Manifest) *Graph {
	bAll, cAll := allOf(base), allOf(current)
	g := &Graph{
		base:      base,
		current:   current,
		nodes:     make(map[string]*Node, len(cAll)+len(bAll)/8),
		inBase:    make(map[string]bool, len(bAll)),
		inCurrent: make(map[string]bool, len(cAll)),
		parents:   make(map[string][]string, len(cAll)),
		children:  make(map[string][]string, len(cAll)),
	}
	for id, n := range cAll {
		g.nodes[id] = n
		g.inCurrent[id] = true
	}
	for id, n := range bAll {
		g.inBase[id] = true
		if _, ok := g.nodes[id]; !ok {
			g.nodes[id] = n
		}
	}
	g.ids = make([]string, 0, len(g.nodes))
	for id := range g.nodes {
		g.ids = append(g.ids, id)
	}
	sort.Strings(g.ids)
	for _, id := range g.ids {
		n := g.nodes[id]
		var ps []string
		for _, p := range n.DependsOn.Nodes {
			if p == id {
				continue
			}
			if _, ok := g.nodes[p]; ok {
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			continue
		}
		slices.Sort(ps)
		ps = slices.Compact(ps)
		g.parents[id] = ps
		for _, p := range ps {
			g.children[p] = append(g.children[p], id)
		}
	}
	// ids are visited in sorted order, so every children list is sorted.
	return g
}

// Base is the base manifest the graph was built from (may be nil).
func (g *Graph) Base() *Manifest { return g.base }

// Current is the current manifest the graph was built from (may be nil).
func (g *Graph) Current() *Manifest { return g.current }

// IDs returns every node id in the union, sorted. Callers must not modify it.
func (g *Graph) IDs() []string { return g.ids }

// Len is the number of nodes in the union.
func (g *Graph) Len() int { return len(g.ids) }

// Node returns the current version of the node, else the base version.
func (g *Graph) Node(id string) (*Node, bool) {
	n, ok := g.nodes[id]
	return n, ok
}

// InBase reports whether the id is an enabled entry of the base manifest.
func (g *Graph) InBase(id string) bool { return g.inBase[id] }

// InCurrent reports whether the id is an enabled entry of the current manifest.
func (g *Graph) InCurrent(id string) bool { return g.inCurrent[id] }

// Parents returns the direct parents of id, sorted. Callers must not modify it.
func (g *Graph) Parents(id string) []string { return g.parents[id] }

// Children returns the direct children of id, sorted. Callers must not modify it.
func (g *Graph) Children(id string) []string { return g.children[id] }

// Ancestors returns the ids upstream of id within depth edges (Unlimited or
// any negative depth for all), sorted, excluding id itself.
func (g *Graph) Ancestors(id string, depth int) []string {
	return sortedKeys(g.walk(map[string]bool{id: true}, depth, g.parents), id)
}

// Descendants returns the ids downstream of id within depth edges (Unlimited
// or any negative depth for all), sorted, excluding id itself.
func (g *Graph) Descendants(id string, depth int) []string {
	return sortedKeys(g.walk(map[string]bool{id: true}, depth, g.children), id)
}

// AncestorsOf returns every node within depth edges upstream of any of the
// start nodes (negative depth: unlimited). Start nodes are included only when
// they are upstream of another start node.
func (g *Graph) AncestorsOf(start map[string]bool, depth int) map[string]bool {
	return g.walk(start, depth, g.parents)
}

// DescendantsOf is AncestorsOf downstream.
func (g *Graph) DescendantsOf(start map[string]bool, depth int) map[string]bool {
	return g.walk(start, depth, g.children)
}

// walk is a multi-source breadth-first search: a node is reached when its
// shortest distance from some start node is between 1 and depth.
func (g *Graph) walk(start map[string]bool, depth int, next map[string][]string) map[string]bool {
	out := make(map[string]bool)
	if depth == 0 {
		return out
	}
	frontier := make([]string, 0, len(start))
	for id := range start {
		frontier = append(frontier, id)
	}
	seen := make(map[string]bool, len(start))
	for id := range start {
		seen[id] = true
	}
	for d := 1; len(frontier) > 0 && (depth < 0 || d <= depth); d++ {
		var nextFrontier []string
		for _, id := range frontier {
			for _, nb := range next[id] {
				out[nb] = true
				if !seen[nb] {
					seen[nb] = true
					nextFrontier = append(nextFrontier, nb)
				}
			}
		}
		frontier = nextFrontier
	}
	return out
}

func sortedKeys(m map[string]bool, skip string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != skip {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
