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
//
// Nodes are also numbered 0..Len()-1 in sorted id order; the *At methods and
// the masks ([]bool indexed by that number) serve hot loops such as the
// selector. A Graph is immutable and safe for concurrent use.
type Graph struct {
	base, current *Manifest
	ids           []string // sorted
	nodes         []*Node  // parallel to ids
	index         map[string]int
	inBase        []bool
	inCurrent     []bool
	parents       [][]int32
	children      [][]int32
}

// NewGraph builds the union graph. Either manifest may be nil.
func NewGraph(base, current *Manifest) *Graph {
	bAll, cAll := allOf(base), allOf(current)
	g := &Graph{base: base, current: current, index: make(map[string]int, len(cAll)+len(bAll)/8)}
	g.ids = make([]string, 0, len(cAll)+len(bAll)/8)
	for id := range cAll {
		g.ids = append(g.ids, id)
	}
	for id := range bAll {
		if _, ok := cAll[id]; !ok {
			g.ids = append(g.ids, id)
		}
	}
	sort.Strings(g.ids)
	n := len(g.ids)
	g.nodes = make([]*Node, n)
	g.inBase = make([]bool, n)
	g.inCurrent = make([]bool, n)
	for i, id := range g.ids {
		g.index[id] = i
		cn, inC := cAll[id]
		bn, inB := bAll[id]
		g.inCurrent[i], g.inBase[i] = inC, inB
		if inC {
			g.nodes[i] = cn
		} else {
			g.nodes[i] = bn
		}
	}
	g.parents = make([][]int32, n)
	g.children = make([][]int32, n)
	nChildren := make([]int32, n)
	for i, node := range g.nodes {
		var ps []int32
		for _, p := range node.DependsOn.Nodes {
			if j, ok := g.index[p]; ok && j != i {
				ps = append(ps, int32(j))
			}
		}
		if len(ps) == 0 {
			continue
		}
		slices.Sort(ps)
		ps = slices.Compact(ps)
		g.parents[i] = ps
		for _, p := range ps {
			nChildren[p]++
		}
	}
	for i, c := range nChildren {
		if c > 0 {
			g.children[i] = make([]int32, 0, c)
		}
	}
	// Nodes are visited in index order, so every children list is sorted.
	for i, ps := range g.parents {
		for _, p := range ps {
			g.children[p] = append(g.children[p], int32(i))
		}
	}
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
	i, ok := g.index[id]
	if !ok {
		return nil, false
	}
	return g.nodes[i], true
}

// IndexOf returns the node's number (its position in IDs()).
func (g *Graph) IndexOf(id string) (int, bool) {
	i, ok := g.index[id]
	return i, ok
}

// NodeAt returns the node numbered i (current version, else base).
func (g *Graph) NodeAt(i int) *Node { return g.nodes[i] }

// InBase reports whether the id is an enabled entry of the base manifest.
func (g *Graph) InBase(id string) bool {
	i, ok := g.index[id]
	return ok && g.inBase[i]
}

// InCurrent reports whether the id is an enabled entry of the current manifest.
func (g *Graph) InCurrent(id string) bool {
	i, ok := g.index[id]
	return ok && g.inCurrent[i]
}

// InBaseAt is InBase by node number.
func (g *Graph) InBaseAt(i int) bool { return g.inBase[i] }

// InCurrentAt is InCurrent by node number.
func (g *Graph) InCurrentAt(i int) bool { return g.inCurrent[i] }

// Parents returns the direct parents of id, sorted.
func (g *Graph) Parents(id string) []string { return g.names(id, g.parents) }

// Children returns the direct children of id, sorted.
func (g *Graph) Children(id string) []string { return g.names(id, g.children) }

func (g *Graph) names(id string, adj [][]int32) []string {
	i, ok := g.index[id]
	if !ok || len(adj[i]) == 0 {
		return nil
	}
	out := make([]string, len(adj[i]))
	for k, j := range adj[i] {
		out[k] = g.ids[j]
	}
	return out
}

// Ancestors returns the ids upstream of id within depth edges (Unlimited or
// any negative depth for all), sorted, excluding id itself.
func (g *Graph) Ancestors(id string, depth int) []string { return g.related(id, depth, g.parents) }

// Descendants returns the ids downstream of id within depth edges (Unlimited
// or any negative depth for all), sorted, excluding id itself.
func (g *Graph) Descendants(id string, depth int) []string { return g.related(id, depth, g.children) }

func (g *Graph) related(id string, depth int, adj [][]int32) []string {
	i, ok := g.index[id]
	if !ok {
		return nil
	}
	start := make([]bool, len(g.ids))
	start[i] = true
	mask := g.walk(start, depth, adj)
	mask[i] = false
	return g.IDsOf(mask)
}

// IDsOf returns the sorted ids of the nodes set in mask.
func (g *Graph) IDsOf(mask []bool) []string {
	var out []string
	for i, on := range mask {
		if on {
			out = append(out, g.ids[i])
		}
	}
	return out
}

// AncestorsOf returns every node within depth edges upstream of any of the
// start nodes (negative depth: unlimited). Start nodes are included only when
// they are upstream of another start node.
func (g *Graph) AncestorsOf(start map[string]bool, depth int) map[string]bool {
	return g.toSet(g.walk(g.mask(start), depth, g.parents))
}

// DescendantsOf is AncestorsOf downstream.
func (g *Graph) DescendantsOf(start map[string]bool, depth int) map[string]bool {
	return g.toSet(g.walk(g.mask(start), depth, g.children))
}

// AncestorsMask is AncestorsOf over masks indexed by node number.
func (g *Graph) AncestorsMask(start []bool, depth int) []bool { return g.walk(start, depth, g.parents) }

// DescendantsMask is DescendantsOf over masks indexed by node number.
func (g *Graph) DescendantsMask(start []bool, depth int) []bool {
	return g.walk(start, depth, g.children)
}

func (g *Graph) mask(set map[string]bool) []bool {
	m := make([]bool, len(g.ids))
	for id, on := range set {
		if i, ok := g.index[id]; ok && on {
			m[i] = true
		}
	}
	return m
}

func (g *Graph) toSet(mask []bool) map[string]bool {
	out := map[string]bool{}
	for i, on := range mask {
		if on {
			out[g.ids[i]] = true
		}
	}
	return out
}

// walk is a multi-source breadth-first search: a node is reached when its
// shortest distance from some start node is between 1 and depth.
func (g *Graph) walk(start []bool, depth int, adj [][]int32) []bool {
	out := make([]bool, len(g.ids))
	if depth == 0 {
		return out
	}
	seen := make([]bool, len(g.ids))
	var frontier []int32
	for i, on := range start {
		if on && i < len(seen) {
			seen[i] = true
			frontier = append(frontier, int32(i))
		}
	}
	for d := 1; len(frontier) > 0 && (depth < 0 || d <= depth); d++ {
		var next []int32
		for _, i := range frontier {
			for _, j := range adj[i] {
				out[j] = true
				if !seen[j] {
					seen[j] = true
					next = append(next, j)
				}
			}
		}
		frontier = next
	}
	return out
}
