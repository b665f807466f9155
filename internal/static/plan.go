package static

import (
	"container/heap"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// PlanQueryInput lists the tables a question needs.
type PlanQueryInput struct {
	Entities []string `json:"entities" jsonschema:"1 to 6 models, seeds, snapshots or sources; the first is the grain you want (one result row per row of it)"`
	Columns  []string `json:"columns,omitempty" jsonschema:"columns to select as entity.column; by default each table's key (or its first 3 columns)"`
	Infer    bool     `json:"infer,omitempty" jsonschema:"allow joins guessed from column naming when nothing better connects the tables"`
}

// PlannedTable is a table in the query.
type PlannedTable struct {
	Name     string `json:"name" jsonschema:"table name"`
	UniqueID string `json:"unique_id" jsonschema:"unique id"`
	Alias    string `json:"alias" jsonschema:"alias in the SQL"`
	// Role is base, requested or path (added to connect requested tables).
	Role  string `json:"role" jsonschema:"base, requested or path (added to connect requested tables)"`
	Grain string `json:"grain" jsonschema:"one row per what"`
}

// PlannedJoin is one left join of the query.
type PlannedJoin struct {
	// From is the table already in the query; To is the table joined to it.
	From string `json:"from" jsonschema:"table already in the query"`
	To   string `json:"to" jsonschema:"table joined to it"`
	On   string `json:"on" jsonschema:"join condition"`
	// Cardinality is from From to To: many_to_one, one_to_many, one_to_one or unknown.
	Cardinality string `json:"cardinality" jsonschema:"from From to To: many_to_one, one_to_many, one_to_one or unknown"`
	Basis       string `json:"basis" jsonschema:"declared, tested, joined or inferred"`
	// RepeatsRows is true when the join can repeat rows of the query
	// (To is the many side, or the cardinality is unknown).
	RepeatsRows bool       `json:"repeats_rows" jsonschema:"the join can repeat rows (To is the many side, or unknown cardinality): aggregate first"`
	Evidence    []Evidence `json:"evidence" jsonschema:"the facts behind it"`
}

// PlanQueryResult is a join plan and starting SQL.
type PlanQueryResult struct {
	Base     string         `json:"base" jsonschema:"the grain table"`
	Grain    string         `json:"grain" jsonschema:"one result row per what"`
	Tables   []PlannedTable `json:"tables" jsonschema:"tables in the plan"`
	Joins    []PlannedJoin  `json:"joins" jsonschema:"left joins, in order"`
	Warnings []string       `json:"warnings" jsonschema:"fan-out and trust warnings with the fix"`
	SQL      string         `json:"sql" jsonschema:"the query in {{ ref() }} form"`
	Next     string         `json:"next" jsonschema:"what to do next"`
}

// PlanQuery picks the most trustworthy join path between the entities
// (declared/tested over joined over inferred), writes dbt SQL with left
// joins on full keys, and warns when a join repeats rows.
func PlanQuery(ctx context.Context, p *Project, in PlanQueryInput) (*PlanQueryResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(in.Entities) == 0 || len(in.Entities) > 6 {
		return nil, fmt.Errorf("plan_query takes 1 to 6 entities (got %d): pass the table whose grain you want first, then the tables to join", len(in.Entities))
	}
	var want []*entity
	seen := map[string]bool{}
	for _, name := range in.Entities {
		e, err := p.resolve(name)
		if err != nil {
			return nil, err
		}
		if !seen[e.id] {
			seen[e.id] = true
			want = append(want, e)
		}
	}
	g := p.graph()
	adj := g.adjIdx[0]
	if in.Infer {
		adj = g.adjIdx[1]
	}
	base := want[0]
	res := &PlanQueryResult{Base: base.name, Grain: p.grain(base), Tables: []PlannedTable{}, Joins: []PlannedJoin{}, Warnings: []string{}}
	aliases := map[string]string{}
	used := map[string]bool{}
	addTable := func(e *entity, role string) {
		a := aliasFor(e, used)
		aliases[e.id] = a
		res.Tables = append(res.Tables, PlannedTable{Name: e.name, UniqueID: e.id, Alias: a, Role: role, Grain: p.grain(e)})
	}
	addTable(base, "base")
	if g.keys[base.id].pk == nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s has no known key — don't assume one row per anything; test a unique key to fix the grain", base.name))
	}
	inQuery := map[string]bool{base.id: true}
	var joinClauses []string
	for _, t := range want[1:] {
		if inQuery[t.id] {
			continue
		}
		path := p.cheapestPath(adj, inQuery, t.id)
		if path == nil {
			hint := ""
			if !in.Infer {
				hint = " (retry with infer: true to allow joins guessed from naming)"
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("no known relationship connects %s to the query%s; add a relationships test to connect them", t.name, hint))
			continue
		}
		for _, step := range path {
			r, fromID, toID := step.rel, step.from, step.to
			from, to := p.byID[fromID], p.byID[toID]
			role := "path"
			if toID == t.id {
				role = "requested"
			}
			addTable(to, role)
			inQuery[toID] = true
			// Orient the condition from the existing table to the new one.
			fromCols, toCols := r.FromColumns, r.ToColumns
			card := r.Cardinality
			if r.FromID != fromID || (r.FromID == r.ToID) {
				fromCols, toCols = r.ToColumns, r.FromColumns
				card = invertCardinality(card)
			}
			conds := make([]string, len(fromCols))
			human := make([]string, len(fromCols))
			for i := range fromCols {
				conds[i] = p.quoteAlias(aliases[fromID]) + "." + p.quoteCol(from, fromCols[i]) + " = " + p.quoteAlias(aliases[toID]) + "." + p.quoteCol(to, toCols[i])
				human[i] = from.name + "." + fromCols[i] + " = " + to.name + "." + toCols[i]
			}
			repeats := card == "one_to_many" || card == UnknownCardinality
			res.Joins = append(res.Joins, PlannedJoin{From: from.name, To: to.name, On: strings.Join(human, " and "), Cardinality: card, Basis: r.Basis, RepeatsRows: repeats, Evidence: r.Evidence})
			joinClauses = append(joinClauses, "left join "+to.refExpr()+" as "+p.quoteAlias(aliases[toID])+"\n    on "+strings.Join(conds, "\n    and "))
			switch {
			case card == "one_to_many":
				res.Warnings = append(res.Warnings, fmt.Sprintf("joining %s repeats rows: each %s row matches many %s rows (%s is the many side), so the result is no longer at the grain of %s. Aggregate %s by %s in a subquery first, then join it.",
					to.name, from.name, to.name, to.name, base.name, to.name, strings.Join(toCols, ", ")))
			case card == UnknownCardinality:
				res.Warnings = append(res.Warnings, fmt.Sprintf("the join from %s to %s has unknown cardinality (no tested key on %s.%s), so it may repeat rows. Test a unique key on %s, or aggregate %s by %s in a subquery first.",
					from.name, to.name, to.name, strings.Join(toCols, ", "), to.name, to.name, strings.Join(toCols, ", ")))
			}
			if r.Basis == BasisInferred {
				res.Warnings = append(res.Warnings, fmt.Sprintf("the join %s is guessed from naming — verify it, then add a relationships test", strings.Join(human, " and ")))
			}
		}
	}
	selects, err := p.planSelects(in.Columns, res.Tables, aliases)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("select\n    ")
	b.WriteString(strings.Join(selects, ",\n    "))
	b.WriteString("\nfrom " + base.refExpr() + " as " + p.quoteAlias(aliases[base.id]))
	for _, j := range joinClauses {
		b.WriteString("\n" + j)
	}
	b.WriteString("\n")
	res.SQL = b.String()
	res.Next = "Run the SQL with dbt show --inline (or compile it) and check the row count against " + base.name + "; fix any warning before trusting totals."
	return res, nil
}

func (p *Project) planSelects(cols []string, tables []PlannedTable, aliases map[string]string) ([]string, error) {
	var out []string
	if len(cols) > 0 {
		for _, spec := range cols {
			i := strings.LastIndexByte(spec, '.')
			if i <= 0 || i == len(spec)-1 {
				return nil, fmt.Errorf("column %q must be written as entity.column", spec)
			}
			e, err := p.resolve(spec[:i])
			if err != nil {
				return nil, err
			}
			a, ok := aliases[e.id]
			if !ok {
				return nil, fmt.Errorf("column %q belongs to %s, which is not in the query; add it to entities", spec, e.name)
			}
			col := spec[i+1:]
			if _, ok := e.column(col); !ok && len(e.cols) > 0 {
				names := make([]string, len(e.cols))
				for k, c := range e.cols {
					names[k] = c.Name
				}
				return nil, dbt.NotFoundf("%s has no column %q; closest: %s", e.name, col, strings.Join(ClosestMatches(col, names, 5), ", "))
			}
			out = append(out, p.quoteAlias(a)+"."+p.quoteCol(e, col))
		}
		return out, nil
	}
	g := p.graph()
	for _, t := range tables {
		e := p.byID[t.UniqueID]
		a := p.quoteAlias(aliases[e.id])
		var pick []string
		if pk := g.keys[e.id].pk; pk != nil {
			pick = pk.Columns
		} else {
			for _, c := range e.cols {
				if len(pick) == 3 {
					break
				}
				pick = append(pick, c.Name)
			}
		}
		if len(pick) == 0 {
			out = append(out, a+".*")
			continue
		}
		for _, c := range pick {
			out = append(out, a+"."+p.quoteCol(e, c))
		}
	}
	return out, nil
}

// aliasFor builds a short alias from the initials of the table name
// (order_items → oi), unique within the query.
func aliasFor(e *entity, used map[string]bool) string {
	name := strings.ToLower(e.node.Name)
	var b strings.Builder
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z') && !(r >= '0' && r <= '9') }) {
		if w[0] >= 'a' && w[0] <= 'z' {
			b.WriteByte(w[0])
		}
	}
	a := b.String()
	if a == "" {
		a = "t"
	}
	cand := a
	for i := 2; used[cand]; i++ {
		cand = a + strconv.Itoa(i)
	}
	used[cand] = true
	return cand
}

type pathStep struct {
	rel      *Relationship
	from, to string
}

// edgeWeight prefers declared/tested (1) over joined (2) over inferred (4),
// plus 2 when the cardinality is unknown.
func edgeWeight(r *Relationship) int {
	w := 1
	switch r.Basis {
	case BasisJoined:
		w = 2
	case BasisInferred:
		w = 4
	}
	if r.Cardinality == UnknownCardinality {
		w += 2
	}
	return w
}

type pqItem struct{ node, dist, seq int }

type pq []pqItem

func (q pq) Len() int { return len(q) }
func (q pq) Less(i, j int) bool {
	if q[i].dist != q[j].dist {
		return q[i].dist < q[j].dist
	}
	return q[i].seq < q[j].seq
}
func (q pq) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pq) Push(x any)   { *q = append(*q, x.(pqItem)) }
func (q *pq) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// cheapestPath runs Dijkstra from every table in the query to target over
// the undirected relationship graph; nil when unreachable.
func (p *Project) cheapestPath(adj [][]*Relationship, sources map[string]bool, target string) []pathStep {
	n := len(p.entities)
	dist := make([]int, n)
	prev := make([]*Relationship, n)
	prevNode := make([]int, n)
	isSrc := make([]bool, n)
	for i := range dist {
		dist[i] = -1
	}
	q := &pq{}
	seq := 0
	for _, e := range p.entities { // deterministic source order
		if sources[e.id] {
			isSrc[e.idx] = true
			dist[e.idx] = 0
			heap.Push(q, pqItem{e.idx, 0, seq})
			seq++
		}
	}
	tgt := p.byID[target].idx
	for q.Len() > 0 {
		it := heap.Pop(q).(pqItem)
		if it.dist > dist[it.node] {
			continue
		}
		if it.node == tgt {
			break
		}
		for _, r := range adj[it.node] {
			other := r.to
			if other == it.node {
				other = r.from
			}
			if isSrc[other] {
				continue
			}
			nd := it.dist + edgeWeight(r)
			if dist[other] < 0 || nd < dist[other] {
				dist[other] = nd
				prev[other], prevNode[other] = r, it.node
				heap.Push(q, pqItem{other, nd, seq})
				seq++
			}
		}
	}
	if dist[tgt] < 0 {
		return nil
	}
	var path []pathStep
	for cur := tgt; !isSrc[cur]; cur = prevNode[cur] {
		path = append(path, pathStep{rel: prev[cur], from: p.entities[prevNode[cur]].id, to: p.entities[cur].id})
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}
