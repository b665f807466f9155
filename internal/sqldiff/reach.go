package sqldiff

import (
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// The reach graph attributes a change to the final output columns it
// touches. Its nodes are the queries that other queries read by name or
// position: the whole query, each CTE, each derived table and each
// expression subquery. It resolves names the simple way (qualifier → FROM
// item; an unqualified name → every named source having it): it decides
// attribution, never whether something changed.

// ref is a column of a node; col "*" stands for any column of it.
type ref struct {
	n   *node
	col string
}

type node struct {
	outs []string
	// known is false when an output list could not be known (a star over
	// a physical table): unqualified names may then come from it.
	known   bool
	colDeps [][]ref
	// rowRefs are the columns that decide rows (joins, filters, grouping,
	// ordering); rowSrcs are the nodes read in FROM, whose every row-level
	// change reaches every column here.
	rowRefs []ref
	rowSrcs []*node
}

// maxOutputs bounds one node's output list.
const maxOutputs = 10000

type graph struct {
	root  *node
	nodes map[*sqlparse.Query]*node
	// order lists nodes inner first, so one pass mostly settles reach.
	order []*node
	// tables are the leaves of the upstream schemas, by lower-case name.
	tables map[string]*node
}

func buildGraph(q *sqlparse.Query, schema map[string][]string) *graph {
	g := &graph{nodes: map[*sqlparse.Query]*node{}, tables: map[string]*node{}}
	for t, cols := range schema {
		// A physical relation is a leaf: never changed itself, it names
		// the columns a star over it passes through.
		g.tables[strings.ToLower(t)] = &node{outs: cols, known: true, colDeps: make([][]ref, len(cols))}
	}
	g.root = g.build(q, map[string]*node{})
	return g
}

func (g *graph) build(q *sqlparse.Query, ctes map[string]*node) *node {
	if q == nil {
		return nil
	}
	if q.With != nil {
		local := make(map[string]*node, len(ctes)+len(q.With.CTEs))
		for k, v := range ctes {
			local[k] = v
		}
		for _, c := range q.With.CTEs {
			local[c.Name] = g.build(c.Query, local)
		}
		ctes = local
	}
	n := &node{known: true}
	g.nodes[q] = n
	first := true
	var visit func(b sqlparse.QueryBody)
	visit = func(b sqlparse.QueryBody) {
		switch x := b.(type) {
		case *sqlparse.SetOp:
			visit(x.Left)
			visit(x.Right)
		case *sqlparse.Query:
			visit(x.Body)
		case *sqlparse.Select:
			g.branch(n, x, ctes, first)
			first = false
		case *sqlparse.Values:
			if first && len(x.Rows) > 0 {
				for range x.Rows[0] {
					n.outs = append(n.outs, "")
					n.colDeps = append(n.colDeps, nil)
				}
			}
			first = false
		}
	}
	visit(q.Body)
	for _, o := range q.OrderBy {
		n.rowRefs = append(n.rowRefs, g.refs(o.Expr, nil, nil, ctes)...)
	}
	g.order = append(g.order, n)
	return n
}

// branch adds one SELECT block of node n: its outputs when it is the
// first branch, else its columns' dependencies by position.
func (g *graph) branch(n *node, s *sqlparse.Select, ctes map[string]*node, first bool) {
	items := flattenFrom(s.From)
	srcs := make([]*node, len(items))
	quals := map[string]int{}
	for k, it := range items {
		switch x := it.t.(type) {
		case *sqlparse.TableRef:
			if len(x.Name.Parts) == 1 {
				srcs[k] = ctes[x.Name.Parts[0]]
			}
			if srcs[k] == nil {
				srcs[k] = g.tables[strings.ToLower(x.Name.String())]
			}
			quals[x.Name.String()] = k
			quals[x.Name.Last()] = k
		case *sqlparse.DerivedTable:
			srcs[k] = g.build(x.Query, ctes)
		}
		if a := aliasOf(it.t); a != "" {
			quals[a] = k
		}
		if srcs[k] != nil {
			n.rowSrcs = append(n.rowSrcs, srcs[k])
		}
	}
	refs := func(e sqlparse.Expr) []ref { return g.refs(e, srcs, quals, ctes) }
	for _, it := range items {
		n.rowRefs = append(n.rowRefs, refs(it.on)...)
		for _, u := range it.using {
			n.rowRefs = append(n.rowRefs, refs(&sqlparse.ColumnRef{Name: sqlparse.Name{Parts: []string{u}}})...)
		}
	}
	for _, e := range []sqlparse.Expr{s.Where, s.Having, s.Qualify} {
		n.rowRefs = append(n.rowRefs, refs(e)...)
	}
	for _, e := range s.GroupBy {
		n.rowRefs = append(n.rowRefs, refs(e)...)
	}
	for _, e := range s.DistinctOn {
		n.rowRefs = append(n.rowRefs, refs(e)...)
	}
	col := 0
	add := func(name string, deps []ref) {
		if len(n.outs) >= maxOutputs {
			// Stars over stars can multiply outputs; attribution past
			// this is not worth the memory.
			n.known = false
			return
		}
		if first {
			n.outs = append(n.outs, name)
			n.colDeps = append(n.colDeps, deps)
		} else if col < len(n.colDeps) {
			n.colDeps[col] = append(n.colDeps[col], deps...)
		}
		col++
	}
	for _, it := range s.Items {
		if it.Star == nil {
			add(itemName(it), refs(it.Expr))
			continue
		}
		for k, src := range srcs {
			if len(it.Star.Qualifier) > 0 {
				if qk, ok := quals[joinParts(it.Star.Qualifier)]; !ok || qk != k {
					continue
				}
			}
			if src == nil {
				n.known = false
				continue
			}
			for _, o := range src.outs {
				add(o, []ref{{src, o}})
			}
		}
	}
}

func joinParts(p []string) string {
	s := ""
	for i, x := range p {
		if i > 0 {
			s += "."
		}
		s += x
	}
	return s
}

// refs lists the node columns an expression reads; a subquery in it is a
// node read as a whole.
func (g *graph) refs(e sqlparse.Expr, srcs []*node, quals map[string]int, ctes map[string]*node) []ref {
	var out []ref
	walkExpr(e, func(x sqlparse.Expr) {
		switch v := x.(type) {
		case *sqlparse.ColumnRef:
			parts := v.Name.Parts
			for k := len(parts) - 1; k >= 1; k-- {
				if i, ok := quals[joinParts(parts[:k])]; ok {
					if srcs[i] != nil {
						out = append(out, ref{srcs[i], parts[k]})
					}
					return
				}
			}
			name := parts[0]
			for _, s := range srcs {
				if s != nil && (!s.known || contains(s.outs, name)) {
					out = append(out, ref{s, name})
				}
			}
		case *sqlparse.Subquery:
			if sn := g.build(v.Query, ctes); sn != nil {
				out = append(out, ref{sn, "*"})
			}
		case *sqlparse.InExpr:
			if v.Query != nil {
				if sn := g.build(v.Query, ctes); sn != nil {
					out = append(out, ref{sn, "*"})
				}
			}
		}
	})
	return out
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// reach returns the root's output columns that a change to column col of
// n reaches (col "" is a row-level change: every column of n).
func (g *graph) reach(n *node, col string) []string {
	if n == nil {
		return nil
	}
	all := map[*node]bool{}
	aff := map[*node]map[string]bool{}
	if col == "" {
		all[n] = true
	} else {
		aff[n] = map[string]bool{col: true}
	}
	touched := func(r ref) bool {
		return all[r.n] || (r.col == "*" && len(aff[r.n]) > 0) || aff[r.n][r.col]
	}
	for pass := 0; pass <= len(g.order); pass++ {
		changed := false
		for _, m := range g.order {
			if !all[m] {
				for _, s := range m.rowSrcs {
					if all[s] {
						all[m], changed = true, true
						break
					}
				}
			}
			if !all[m] {
				for _, r := range m.rowRefs {
					if touched(r) {
						all[m], changed = true, true
						break
					}
				}
			}
			for i, deps := range m.colDeps {
				if aff[m][m.outs[i]] {
					continue
				}
				for _, r := range deps {
					if touched(r) {
						if aff[m] == nil {
							aff[m] = map[string]bool{}
						}
						aff[m][m.outs[i]], changed = true, true
						break
					}
				}
			}
		}
		if !changed {
			break
		}
	}
	var out []string
	for _, o := range g.root.outs {
		if o != "" && (all[g.root] || aff[g.root][o]) && !contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// walkExpr is sqlparse.WalkExpr with window clauses.
func walkExpr(e sqlparse.Expr, fn func(sqlparse.Expr)) { sqlparse.WalkExpr(e, true, fn) }
