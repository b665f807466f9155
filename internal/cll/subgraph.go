// The column subgraph: the part of the column graph around focus columns,
// as get_cll returns it, with a size cap that says what it left out.

package cll

// Direction selects the sides of a column a subgraph follows.
type Direction uint8

// Directions: upstream (what a column is computed from), downstream (what
// is computed or row-shaped from it), or both.
const (
	DirUpstream Direction = 1 << iota
	DirDownstream
	DirBoth = DirUpstream | DirDownstream
)

// ColumnSubgraph is the part of the column graph around focus columns.
type ColumnSubgraph struct {
	// Columns are the focus columns, each followed by the columns reached
	// from it (upstream, then downstream, each sorted), without
	// case-insensitive repeats; a column keeps its first spelling. At most
	// the limit.
	Columns []NodeColumn
	// Total counts the columns of the whole subgraph; Truncated is true
	// when Columns stops short of it.
	Total     int
	Truncated bool
}

// Subgraph returns the focus columns and every column reached from them in
// direction, transitively. limit <= 0 means no limit. When the limit cuts
// the subgraph, Columns keeps the first limit columns in the order above
// and Total still counts them all (one traversal from every focus column
// at once, so the count stays linear in the graph).
func (p *ProjectLineage) Subgraph(focus []NodeColumn, dir Direction, limit int) *ColumnSubgraph {
	sg := &ColumnSubgraph{Columns: []NodeColumn{}}
	seen := map[NodeColumn]bool{}
	add := func(c NodeColumn) bool {
		k := c.key()
		if seen[k] {
			return true
		}
		if limit > 0 && len(sg.Columns) >= limit {
			sg.Truncated = true
			return false
		}
		seen[k] = true
		sg.Columns = append(sg.Columns, c)
		return true
	}
fill:
	for _, f := range focus {
		if !add(f) {
			break
		}
		var reached []NodeColumn
		if dir&DirUpstream != 0 {
			reached = append(reached, p.Upstream(f)...)
		}
		if dir&DirDownstream != 0 {
			reached = append(reached, p.Downstream(f)...)
		}
		for _, c := range reached {
			if !add(c) {
				break fill
			}
		}
	}
	sg.Total = len(sg.Columns)
	if sg.Truncated {
		sg.Total = p.subgraphSize(focus, dir)
	}
	return sg
}

// subgraphSize counts the distinct columns of the subgraph: the union of
// the closures from each focus column is the closure from all of them, so
// one traversal per direction, over column ids, counts it.
func (p *ProjectLineage) subgraphSize(focus []NodeColumn, dir Direction) int {
	g := p.index()
	const (
		start uint8 = 1 << iota
		reachedUp
		reachedDown
	)
	mark := make([]uint8, len(g.colName))
	var starts []int32
	// A focus column the graph does not know reaches nothing; it counts
	// once per case-folded name.
	unknown := map[NodeColumn]bool{}
	for _, f := range focus {
		i := g.lookup(f)
		if i < 0 {
			unknown[f.key()] = true
			continue
		}
		if mark[i]&start == 0 {
			mark[i] |= start
			starts = append(starts, i)
		}
	}
	walk := func(bit uint8, next func(int32, func(int32))) {
		queue := append([]int32(nil), starts...)
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			next(cur, func(i int32) {
				if mark[i]&(bit|start) == 0 {
					mark[i] |= bit
					queue = append(queue, i)
				}
			})
		}
	}
	if dir&DirUpstream != 0 {
		walk(reachedUp, g.upNext)
	}
	if dir&DirDownstream != 0 {
		walk(reachedDown, g.downNext)
	}
	n := len(unknown)
	for i, m := range mark {
		if m&start != 0 || m != 0 && g.isReal(int32(i)) {
			n++
		}
	}
	return n
}

// ColumnParents returns the columns c is computed from directly (one hop
// of value lineage), in the order of its dependencies. A relation that is
// not in the manifest is named "relation:<name>", as everywhere in cll.
func (p *ProjectLineage) ColumnParents(c NodeColumn) []NodeColumn {
	g := p.index()
	i := g.lookup(c)
	if i < 0 {
		return nil
	}
	var out []NodeColumn
	for _, u := range g.upOf(i) {
		out = append(out, g.col(u))
	}
	return out
}

// ColumnChildren returns the columns computed directly from c (one hop of
// value lineage; row-shaping is not followed), ordered by model id.
func (p *ProjectLineage) ColumnChildren(c NodeColumn) []NodeColumn {
	g := p.index()
	i := g.lookup(c)
	if i < 0 {
		return nil
	}
	var out []NodeColumn
	for _, e := range g.downOf(i) {
		if e.via == viaValue {
			out = append(out, g.col(e.to))
		}
	}
	return out
}
