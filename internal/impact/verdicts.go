package impact

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/sqldiff"
)

// Verdicts of a node: the one impact model every surface reads.
const (
	// VerdictImpacted: the node changed in a way that can alter data, or a
	// data-affecting change reaches it.
	VerdictImpacted = "impacted"
	// VerdictRuledOut: downstream of a change in the DAG, but column lineage
	// shows that none of the changed columns reaches what it reads.
	VerdictRuledOut = "ruled_out"
	// VerdictNotImpacted: no data-affecting change is upstream of it (a
	// config-only change upstream included).
	VerdictNotImpacted = "not_impacted"
)

// Change statuses of a node beyond dbt's added/removed/modified.
const (
	ChangeDownstream = "downstream"
)

// Node is one node's place in the impact model.
type Node struct {
	ID           string
	Name         string
	ResourceType string
	// Change is added, removed or modified (any state change, config-only
	// included), downstream (of a data-affecting change), or "" (neither).
	Change        string
	Modifications []string
	// Verdict is VerdictImpacted, VerdictRuledOut or VerdictNotImpacted.
	Verdict string
	// Column lineage of a modified node (known: both builds analysed).
	Category      string
	RowSetChanged bool
	CodeChanged   []string
	cllKnown      bool
	// ImpactedVia are the changed upstream columns (model.column) that reach
	// the node; ImpactedColumns its own columns they reach.
	ImpactedVia     []string
	ImpactedColumns []string
	// RuledOut is the column-lineage evidence of a ruled-out node.
	RuledOut *NotImpacted
	// Cosmetic: a modified node whose edit the SQL parser finds cosmetic
	// only (ClassifyCode); not impacted.
	Cosmetic bool
}

// Measured is what a warehouse step found for a node during this session.
type Measured struct {
	DataImpact  string
	RowCount    *RowCount
	SchemaKnown bool
	// SchemaChanged: the catalogs differ for this model.
	SchemaChanged bool
	PrimaryKey    []string
	KeySource     string
}

// Verdicts is the impact model of one comparison: computed once per loaded
// project (ops.Session caches it) and read by impact_analysis, lineage_diff,
// get_cll, column_impact, render_lineage_mermaid, summary and the web UI, so
// every surface gives every node the same verdict. Measurements of the
// warehouse steps are recorded on it as they are made.
type Verdicts struct {
	// Source is column_lineage or lineage_dag.
	Source string
	nodes  map[string]*Node
	// changed are the nodes whose own change can alter data, sorted.
	changed []string
	// code is the structural diff of each modified node's code (ClassifyCode).
	code map[string]*sqldiff.CodeChange

	mu       sync.Mutex
	measured map[string]Measured
}

// Node returns a node's entry; every node of the comparison's graph has one.
func (v *Verdicts) Node(id string) (*Node, bool) {
	n, ok := v.nodes[id]
	return n, ok
}

// Verdict is a node's verdict (VerdictNotImpacted for an unknown id).
func (v *Verdicts) Verdict(id string) string {
	if n, ok := v.nodes[id]; ok {
		return n.Verdict
	}
	return VerdictNotImpacted
}

// RuledOut lists the nodes column lineage rules out, by name.
func (v *Verdicts) RuledOut() []*Node {
	var out []*Node
	for _, n := range v.nodes {
		if n.Verdict == VerdictRuledOut {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Name < out[j].Name || out[i].Name == out[j].Name && out[i].ID < out[j].ID
	})
	return out
}

// Record keeps what an analysis measured, for the surfaces that cannot
// measure (the diagram's row-count and schema notes, the UI's key).
func (v *Verdicts) Record(models []*Model) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.measured == nil {
		v.measured = map[string]Measured{}
	}
	for _, m := range models {
		ms := Measured{DataImpact: m.DataImpact, RowCount: m.RowCount, SchemaKnown: m.SchemaChanges != nil,
			SchemaChanged: len(m.SchemaChanges) > 0, PrimaryKey: m.PrimaryKey, KeySource: m.KeySource}
		v.measured[m.UniqueID] = ms
	}
}

// Measurement returns what was measured for a node in this session, if anything.
func (v *Verdicts) Measurement(id string) (Measured, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	m, ok := v.measured[id]
	return m, ok
}

// Classify builds the impact model. impacted is DefaultSelect's selection
// (what counts as changed and everything downstream of it); l is the column
// lineage of both builds, nil for the model-level (DAG) answer.
func Classify(ctx context.Context, cmp *lineage.Comparison, impacted []string, l *Lineage) *Verdicts {
	v := &Verdicts{Source: "lineage_dag", nodes: make(map[string]*Node, len(cmp.Graph.IDs()))}
	inSel := make(map[string]bool, len(impacted))
	for _, id := range impacted {
		inSel[id] = true
		if st, ok := cmp.State[id]; ok && dataAffecting(st) {
			v.changed = append(v.changed, id)
		}
	}
	sort.Strings(v.changed)
	g := cmp.Graph
	for _, id := range g.IDs() {
		n, ok := g.Node(id)
		if !ok {
			continue
		}
		nd := &Node{ID: id, Name: n.Name, ResourceType: n.ResourceType, Verdict: VerdictNotImpacted, Modifications: []string{}}
		if st, ok := cmp.State[id]; ok {
			nd.Change, nd.Verdict = st.ChangeStatus, VerdictImpacted
			for _, m := range st.Modifications {
				nd.Modifications = append(nd.Modifications, string(m))
			}
		} else if inSel[id] && !n.Disabled {
			nd.Change, nd.Verdict = ChangeDownstream, VerdictImpacted
		}
		v.nodes[id] = nd
	}
	if l != nil {
		v.Source = "column_lineage"
		v.prune(ctx, cmp, inSel, l)
	}
	return v
}

// change is what column lineage says about one modified node.
type change struct {
	// roots are the node's columns whose values may differ: its changed
	// columns, or all of them when the row set changed or lineage cannot
	// tell (opaque SQL, seeds, added models).
	roots         []cll.NodeColumn
	codeChanged   []string
	rowSetChanged bool
	category      string
	known         bool
}

func changeOf(l *Lineage, id string) change {
	b, okb := l.Base.Models[id]
	c, okc := l.Current.Models[id]
	if !okb || !okc || b.Opaque || c.Opaque {
		ch := change{rowSetChanged: true, category: "unknown"}
		if okc && !c.Opaque {
			for _, col := range c.Columns {
				ch.roots = append(ch.roots, cll.NodeColumn{Node: id, Column: col.Name})
			}
		} else {
			for _, col := range columnsReadFrom(l.Current, id) {
				ch.roots = append(ch.roots, cll.NodeColumn{Node: id, Column: col})
			}
		}
		// "*" is the node's rows as a whole: a changed row set reaches the
		// readers of no column of it (select count(*) from it).
		ch.roots = append(ch.roots, cll.NodeColumn{Node: id, Column: "*"})
		return ch
	}
	ca := cll.CompareModel(b, c)
	ch := change{rowSetChanged: ca.RowSetChanged, category: ca.Category, known: true}
	seen := map[string]bool{}
	add := func(col string) {
		if !seen[strings.ToLower(col)] {
			seen[strings.ToLower(col)] = true
			ch.roots = append(ch.roots, cll.NodeColumn{Node: id, Column: col})
		}
	}
	for _, nc := range ca.ChangedColumns(b) {
		add(nc.Column)
	}
	// A new column reaches readers that select it (e.g. through a star).
	for _, col := range ca.Added {
		add(col)
	}
	if ca.RowSetChanged {
		for _, col := range c.Columns {
			add(col.Name)
		}
	}
	for _, r := range ch.roots {
		ch.codeChanged = append(ch.codeChanged, r.Column)
	}
	if ca.RowSetChanged {
		ch.roots = append(ch.roots, cll.NodeColumn{Node: id, Column: "*"})
	}
	sort.Strings(ch.codeChanged)
	return ch
}

// prune follows every changed column downstream, one at a time so that
// each node learns every changed column that reaches it (impacted_via),
// then rules out the downstream models none of them reaches. Other
// downstream nodes (tests, exposures, metrics) are impacted only when an
// impacted node feeds them.
func (v *Verdicts) prune(ctx context.Context, cmp *lineage.Comparison, inSel map[string]bool, l *Lineage) {
	rootsOf := map[string][]cll.NodeColumn{}
	changes := map[string]change{}
	for _, id := range v.changed {
		changes[id] = changeOf(l, id)
		rootsOf[id] = changes[id].roots
	}
	for id, nd := range v.nodes {
		if nd.Change != "modified" || !tracked[nd.ResourceType] {
			continue
		}
		ch, ok := changes[id]
		if !ok {
			ch = changeOf(l, id)
		}
		nd.Category, nd.RowSetChanged, nd.cllKnown = ch.category, ch.rowSetChanged, ch.known
		if ch.known {
			nd.CodeChanged = ch.codeChanged
			if nd.CodeChanged == nil {
				nd.CodeChanged = []string{}
			}
		}
	}
	via := map[string]map[string]bool{}
	cols := map[string]map[string]bool{}
	for _, id := range v.changed {
		for _, r := range rootsOf[id] {
			if ctx.Err() != nil {
				return
			}
			root := display(cmp, r)
			for _, im := range l.Current.Impact([]cll.NodeColumn{r}).Models {
				if im.Node == id {
					continue
				}
				if via[im.Node] == nil {
					via[im.Node], cols[im.Node] = map[string]bool{}, map[string]bool{}
				}
				via[im.Node][root] = true
				for _, c := range im.Columns {
					cols[im.Node][c] = true
				}
			}
		}
	}
	for id, vv := range via {
		nd, ok := v.nodes[id]
		if !ok || nd.Verdict != VerdictImpacted {
			continue
		}
		for k := range vv {
			// "<node>.*" (the node's rows) is evidence only for a model that
			// no changed column reaches (it reads rows, not columns).
			if strings.HasSuffix(k, ".*") && len(vv) > 1 && hasColumnVia(vv) {
				delete(vv, k)
			}
		}
		if len(vv) > 0 {
			nd.ImpactedVia = sortedKeys(vv)
			if nd.Change == ChangeDownstream {
				nd.ImpactedColumns = sortedKeys(cols[id])
			}
		}
	}
	ids := make([]string, 0, len(v.nodes))
	for id, nd := range v.nodes {
		if nd.Change == ChangeDownstream && tracked[nd.ResourceType] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		nd := v.nodes[id]
		ml, ok := l.Current.Models[id]
		if len(via[id]) > 0 || !ok || ml.Opaque {
			// Reached, or lineage cannot rule it out.
			continue
		}
		reads := readsFromChanged(cmp, inSel, ml)
		if len(reads) == 0 {
			// It reads its upstream without naming columns (count(*), a
			// bare star lineage cannot expand): nothing rules it out.
			continue
		}
		against := map[string]bool{}
		for _, anc := range cmp.Graph.Ancestors(id, -1) {
			for _, r := range rootsOf[anc] {
				against[display(cmp, r)] = true
			}
		}
		reason := "column lineage: none of the changed columns upstream reaches the columns it reads"
		if len(against) == 0 {
			reason = "column lineage: its modified upstream models compute every column as before"
		}
		nd.Verdict = VerdictRuledOut
		nd.RuledOut = &NotImpacted{Name: nd.Name, UniqueID: id, Reason: reason, Reads: reads, CheckedAgainst: sortedKeys(against)}
	}
	// Non-model downstream nodes follow their parents: a test or exposure of
	// a ruled-out model is not impacted either.
	memo := map[string]string{}
	var verdictOf func(id string, depth int) string
	verdictOf = func(id string, depth int) string {
		nd := v.nodes[id]
		if nd == nil {
			return VerdictNotImpacted
		}
		if nd.Change != ChangeDownstream || tracked[nd.ResourceType] || depth > 10000 {
			return nd.Verdict
		}
		if r, ok := memo[id]; ok {
			return r
		}
		memo[id] = VerdictRuledOut // cycle guard
		out := VerdictRuledOut
		for _, p := range cmp.Graph.Parents(id) {
			if pv := v.nodes[p]; pv != nil && pv.Change != "" && verdictOf(p, depth+1) == VerdictImpacted {
				out = VerdictImpacted
				break
			}
		}
		memo[id] = out
		return out
	}
	for id, nd := range v.nodes {
		if nd.Change == ChangeDownstream && !tracked[nd.ResourceType] {
			nd.Verdict = verdictOf(id, 0)
		}
	}
}

// readsFromChanged lists the columns a model reads from its upstream
// nodes that are modified or downstream of a change.
func readsFromChanged(cmp *lineage.Comparison, inSel map[string]bool, ml *cll.ModelLineage) []string {
	seen := map[string]bool{}
	add := func(d cll.ColumnDep) {
		if d.Node == "" {
			return
		}
		if _, modified := cmp.State[d.Node]; !modified && !inSel[d.Node] {
			return
		}
		seen[display(cmp, cll.NodeColumn{Node: d.Node, Column: d.Column})] = true
	}
	for _, c := range ml.Columns {
		for _, d := range c.Deps {
			add(d)
		}
	}
	for _, d := range ml.RowDeps {
		add(d)
	}
	return sortedKeys(seen)
}

// display names a column as model.column.
func display(cmp *lineage.Comparison, c cll.NodeColumn) string {
	return nodeName(cmp, c.Node) + "." + c.Column
}

// nodeName is a node's name, or the last part of an id outside the graph.
func nodeName(cmp *lineage.Comparison, id string) string {
	if n, ok := cmp.Graph.Node(id); ok {
		return n.Name
	}
	if i := strings.LastIndexByte(id, '.'); i >= 0 {
		return id[i+1:]
	}
	return id
}

// columnsReadFrom lists the columns of node that any model reads, as values
// or to shape rows.
func columnsReadFrom(pl *cll.ProjectLineage, node string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(d cll.ColumnDep) {
		if d.Node == node && !seen[strings.ToLower(d.Column)] {
			seen[strings.ToLower(d.Column)] = true
			out = append(out, d.Column)
		}
	}
	for _, m := range pl.Models {
		for _, c := range m.Columns {
			for _, d := range c.Deps {
				add(d)
			}
		}
		for _, d := range m.RowDeps {
			add(d)
		}
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func hasColumnVia(v map[string]bool) bool {
	for k := range v {
		if !strings.HasSuffix(k, ".*") {
			return true
		}
	}
	return false
}

// dataAffecting reports whether a node's own change can alter its data.
func dataAffecting(st dbt.NodeState) bool {
	return st.ChangeStatus == "added" || st.ChangeStatus == "removed" ||
		st.Has(dbt.ModBody) || st.Has(dbt.ModMacros) || st.Has(dbt.ModContract)
}
