// The column graph: every column of a project numbered, with flat (CSR)
// value, row-set and upstream adjacency, built once per ProjectLineage.

package cll

import (
	"hash/maphash"
	"slices"
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

// edge is a step of the column graph. A value edge leads to column to; a
// row-set edge leads to every output column of a model, row-set group to
// of graphIndex.outs, stored once instead of once per output column.
type edge struct {
	to  int32
	via uint8
}

// graphIndex is the column graph with columns numbered, built on first use
// so that AnalyzeProject stays cheap when nobody asks for impact, and so
// that traversals run over integers rather than string-keyed maps.
//
// Adjacency is stored as flat offset+target arrays (CSR) rather than one
// slice per column: the index lives as long as the ProjectLineage, and
// tens of thousands of small pointer-holding slices made every garbage
// collection of a long-lived process (and every Impact call's share of
// it) pay to scan them.
type graphIndex struct {
	// ids finds a column by hash of its key() form; idNext chains
	// columns whose hashes collide.
	seed   maphash.Seed
	ids    map[uint64]int32
	idNext []int32
	// colName is each column's name in display form; nodeOf numbers its
	// node, which nodes names (col puts them together).
	colName []string
	nodeOf  []int32
	nodes   []string
	nodeIDs map[string]int32
	// nodeRank orders nodes by name, so that sorting reached models
	// compares integers; byRank is its inverse.
	nodeRank, byRank []int32
	// down[downOff[i]:downOff[i+1]] are the edges out of column i; up
	// likewise lists the columns column i is computed from.
	downOff []int32
	down    []edge
	upOff   []int32
	up      []int32
	// outs[outsOff[g]:outsOff[g+1]] are the output columns of row-set
	// group g (one model with lineage); rowsOf[g] is its pseudo column
	// "*" (the model as a whole), or -1 when no model reads its rows.
	outsOff []int32
	outs    []int32
	rowsOf  []int32
	// real marks the columns that are output columns or deps; the others
	// are the pseudo columns "*" of relations read (their rows), kept out
	// of results.
	real []bool
	// nodeCols[nodeColsOff[n]:nodeColsOff[n+1]] lists node n's columns.
	nodeColsOff []int32
	nodeCols    []int32
	// opaqueKids lists, per node, the opaque models that read it.
	opaqueKids [][]string
	// readers[readersOff[n]:readersOff[n+1]] are the models (indexes into
	// models) whose lineage reads node n.
	models     []string
	readersOff []int32
	readers    []int32
}

func (g *graphIndex) hash(node, lowerCol string) uint64 {
	return mix64(maphash.String(g.seed, node)) ^ maphash.String(g.seed, lowerCol)
}

// find looks column nc up: its id (or -1), the hash of its key and the
// head of that hash's collision chain (or -1), for id to extend.
func (g *graphIndex) find(nc NodeColumn) (id int32, h uint64, head int32) {
	col := strings.ToLower(nc.Column)
	h = g.hash(nc.Node, col)
	head, ok := g.ids[h]
	if !ok {
		return -1, h, -1
	}
	for i := head; i >= 0; i = g.idNext[i] {
		if g.nodes[g.nodeOf[i]] == nc.Node && lowerEquals(g.colName[i], col) {
			return i, h, head
		}
	}
	return -1, h, head
}

// lookup returns the id of column nc, or -1.
func (g *graphIndex) lookup(nc NodeColumn) int32 {
	i, _, _ := g.find(nc)
	return i
}

// id returns the id of column nc, numbering it when it is new.
func (g *graphIndex) id(nc NodeColumn) int32 {
	found, h, head := g.find(nc)
	if found >= 0 {
		return found
	}
	i := int32(len(g.colName))
	g.ids[h] = i
	g.idNext = append(g.idNext, head)
	g.colName = append(g.colName, nc.Column)
	ni, ok := g.nodeIDs[nc.Node]
	if !ok {
		ni = int32(len(g.nodes))
		g.nodeIDs[nc.Node] = ni
		g.nodes = append(g.nodes, nc.Node)
	}
	g.nodeOf = append(g.nodeOf, ni)
	return i
}

// realID is id for a column that is an output column or a dep.
func (g *graphIndex) realID(nc NodeColumn) int32 {
	i := g.id(nc)
	for int(i) >= len(g.real) {
		g.real = append(g.real, false)
	}
	g.real[i] = true
	return i
}

// isReal reports whether column i is an output column or a dep.
func (g *graphIndex) isReal(i int32) bool { return int(i) < len(g.real) && g.real[i] }

// lowerEquals reports whether strings.ToLower(s) == lower, without
// allocating for ASCII s.
func lowerEquals(s, lower string) bool {
	if len(s) != len(lower) {
		return strings.ToLower(s) == lower
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c|lower[i] >= 0x80 {
			return strings.ToLower(s) == lower
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// col returns column i in display form.
func (g *graphIndex) col(i int32) NodeColumn {
	return NodeColumn{Node: g.nodes[g.nodeOf[i]], Column: g.colName[i]}
}

func (g *graphIndex) downOf(i int32) []edge { return g.down[g.downOff[i]:g.downOff[i+1]] }

func (g *graphIndex) upOf(i int32) []int32 { return g.up[g.upOff[i]:g.upOff[i+1]] }

func (g *graphIndex) outsOf(group int32) []int32 {
	return g.outs[g.outsOff[group]:g.outsOff[group+1]]
}

func (g *graphIndex) colsOf(node int32) []int32 {
	return g.nodeCols[g.nodeColsOff[node]:g.nodeColsOff[node+1]]
}

// csr groups vals by key (a stable counting sort): out[off[k]:off[k+1]]
// are key k's values in their original order.
func csr[T any](n int, keys []int32, vals []T) (off []int32, out []T) {
	off = make([]int32, n+1)
	for _, k := range keys {
		off[k+1]++
	}
	for k := 0; k < n; k++ {
		off[k+1] += off[k]
	}
	out = make([]T, len(vals))
	next := slices.Clone(off[:n])
	for j, k := range keys {
		out[next[k]] = vals[j]
		next[k]++
	}
	return off, out
}

func (p *ProjectLineage) index() *graphIndex {
	p.once.Do(func() { p.idx = buildGraphIndex(p) })
	return p.idx
}

func buildGraphIndex(p *ProjectLineage) *graphIndex {
	g := &graphIndex{seed: maphash.MakeSeed(), ids: map[uint64]int32{}, nodeIDs: map[string]int32{}}
	ids := make([]string, 0, len(p.Models))
	for id := range p.Models {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	g.models = ids
	// Edges are collected as (from, edge) pairs in the order a per-column
	// append would produce, then grouped by column.
	var downFrom, upFrom, readNode, readModel []int32
	var downEdges []edge
	var upCols []int32
	// lastRow and lastRead dedupe within one model: a repeated row-set
	// edge is skipped by any traversal, a repeated reader is one reader.
	var lastRow, lastRead []int32
	var groupModel []string
	for mi, id := range ids {
		ml := p.Models[id]
		mark := int32(mi + 1)
		read := func(from int32) {
			ni := g.nodeOf[from]
			for int(ni) >= len(lastRead) {
				lastRead = append(lastRead, 0)
			}
			if lastRead[ni] != mark {
				lastRead[ni] = mark
				readNode = append(readNode, ni)
				readModel = append(readModel, int32(mi))
			}
		}
		outs := make([]int32, len(ml.Columns))
		for i, c := range ml.Columns {
			outs[i] = g.realID(NodeColumn{Node: id, Column: c.Name})
		}
		for i, c := range ml.Columns {
			for _, d := range c.Deps {
				from := g.realID(d.nodeColumn())
				downFrom = append(downFrom, from)
				downEdges = append(downEdges, edge{to: outs[i], via: viaValue})
				upFrom = append(upFrom, outs[i])
				upCols = append(upCols, from)
				read(from)
			}
		}
		// The model's rows depend on its row deps and on the rows of every
		// relation it reads: a row-set edge from each to all its columns.
		// A relation's rows are its pseudo column "*" (the node as a
		// whole), so that COUNT(*), which reads no column, is reached
		// when they change.
		reads := len(ml.Parents) + len(ml.Unmatched)
		if ml.Opaque {
			// Opaque readers are reached whole through opaqueKids.
			reads = 0
		}
		if len(ml.RowDeps) > 0 || reads > 0 {
			group := int32(len(g.outsOff))
			g.outsOff = append(g.outsOff, int32(len(g.outs)))
			g.outs = append(g.outs, outs...)
			groupModel = append(groupModel, id)
			rowEdge := func(from int32) {
				if len(outs) == 0 {
					return
				}
				for int(from) >= len(lastRow) {
					lastRow = append(lastRow, 0)
				}
				if lastRow[from] == mark {
					return
				}
				lastRow[from] = mark
				downFrom = append(downFrom, from)
				downEdges = append(downEdges, edge{to: group, via: viaRowSet})
			}
			for _, d := range ml.RowDeps {
				from := g.realID(d.nodeColumn())
				read(from)
				rowEdge(from)
			}
			if reads > 0 {
				for _, p := range ml.Parents {
					rowEdge(g.id(NodeColumn{Node: p, Column: "*"}))
				}
				for _, r := range ml.Unmatched {
					rowEdge(g.id(ColumnDep{Relation: r, Column: "*"}.nodeColumn()))
				}
			}
		}
	}
	g.outsOff = append(g.outsOff, int32(len(g.outs)))
	// When a model's rows change, so does the model as a whole.
	g.rowsOf = make([]int32, len(groupModel))
	for i, m := range groupModel {
		g.rowsOf[i] = g.lookup(NodeColumn{Node: m, Column: "*"})
	}
	n := len(g.colName)
	// The index lives as long as the lineage: drop append slack.
	g.colName, g.nodeOf, g.idNext, g.real = slices.Clone(g.colName), slices.Clone(g.nodeOf), slices.Clone(g.idNext), slices.Clone(g.real)
	g.downOff, g.down = csr(n, downFrom, downEdges)
	g.upOff, g.up = csr(n, upFrom, upCols)
	colIDs := make([]int32, n)
	for i := range colIDs {
		colIDs[i] = int32(i)
	}
	g.nodeColsOff, g.nodeCols = csr(len(g.nodes), g.nodeOf, colIDs)
	g.readersOff, g.readers = csr(len(g.nodes), readNode, readModel)

	order := make([]int32, len(g.nodes))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(g.nodes[a], g.nodes[b]) })
	g.nodeRank = make([]int32, len(g.nodes))
	for r, ni := range order {
		g.nodeRank[ni] = int32(r)
	}
	g.byRank = order
	g.opaqueKids = make([][]string, len(g.nodes))
	for ni, nd := range g.nodes {
		for _, kid := range p.children[nd] {
			if ml := p.Models[kid]; ml != nil && ml.Opaque {
				g.opaqueKids[ni] = append(g.opaqueKids[ni], kid)
			}
		}
	}
	return g
}
