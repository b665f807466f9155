package impact

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/selector"
	"github.com/ripple-data/ripple/internal/sqldiff"
)

// analysis is one run of Analyze.
type analysis struct {
	d   Deps
	in  Input
	res *Result
	cmp *lineage.Comparison
	// scope are the node ids the caller asked about (every node by default).
	scope []string
	// impacted is DefaultSelect's selection: what counts as changed and
	// everything downstream of it, whatever the caller selected.
	impacted map[string]bool
	// changed are the nodes whose own change can alter data (body, macros
	// or contract modified, added or removed), sorted.
	changed []string
	// models are the reported impacted models, modified first.
	models []*Model
	byID   map[string]*Model
	keys   *KeyCache
	// code is the structural diff of each modified node's code; cosmetic
	// the nodes whose edit is cosmetic only (cosmetic.go).
	code     map[string]*sqldiff.CodeChange
	cosmetic map[string]bool

	mu sync.Mutex // guards res.Errors
}

// sameRelationModels names the models in scope whose base and current
// builds are one relation, impacted or not: even where the code did not
// change, such a pair says the base was not built on its own (e.g. both
// targets write one schema), which the reader must know.
func (a *analysis) sameRelationModels() []string {
	if a.cmp.Project != nil && a.cmp.Project.SingleEnv {
		return nil // base is current by design; the single-env warning says so
	}
	var out []string
	for _, id := range a.scope {
		n, ok := a.cmp.Graph.Node(id)
		if !ok || !tracked[n.ResourceType] || !a.cmp.Graph.InBase(id) || !a.cmp.Graph.InCurrent(id) {
			continue
		}
		if _, same := diff.SameRelation(a.d.Diff, id); same {
			out = append(out, n.Name)
		}
	}
	sort.Strings(out)
	return out
}

func newAnalysis(d Deps, in Input, res *Result) (*analysis, error) {
	a := &analysis{d: d, in: in, res: res, cmp: d.Comparison, byID: map[string]*Model{}, keys: d.Keys}
	if a.keys == nil {
		a.keys = NewKeyCache()
	}
	if strings.TrimSpace(in.Select) == "" {
		a.scope = a.cmp.Graph.IDs()
	} else {
		ids, err := d.Select(in.Select)
		if err != nil {
			return nil, err
		}
		if err := a.checkSelect(in.Select); err != nil {
			return nil, err
		}
		a.scope = ids
	}
	ids, err := d.Select(DefaultSelect)
	if err != nil {
		return nil, err
	}
	a.impacted = make(map[string]bool, len(ids))
	for _, id := range ids {
		a.impacted[id] = true
		if st, ok := a.cmp.State[id]; ok && dataAffecting(st) {
			a.changed = append(a.changed, id)
		}
	}
	sort.Strings(a.changed)
	a.codeChanges()
	a.dropCosmetic()
	return a, nil
}

// dataAffecting reports whether a node's own change can alter its data.
func dataAffecting(st dbt.NodeState) bool {
	return st.ChangeStatus == "added" || st.ChangeStatus == "removed" ||
		st.Has(dbt.ModBody) || st.Has(dbt.ModMacros) || st.Has(dbt.ModContract)
}

// checkSelect rejects a selector with a term that names nothing in the
// project, naming the closest names: a typo must not quietly shrink the
// answer (selector.Check). state: terms may match nothing (nothing of that
// kind changed); so may anything with allow_empty.
func (a *analysis) checkSelect(sel string) error {
	if a.in.AllowEmpty {
		return nil
	}
	return selector.New(a.cmp.Graph, a.cmp.State, "").Check(selector.Options{Select: sel})
}

// classify builds an entry for every reported model that is modified or
// downstream of a change, lists the others as not impacted and, with
// column lineage, rules out downstream models that no changed column
// reaches.
func (a *analysis) classify(ctx context.Context) {
	g := a.cmp.Graph
	var downstream []*Model
	for _, id := range a.scope {
		n, ok := g.Node(id)
		if !ok || !tracked[n.ResourceType] || n.Disabled {
			continue
		}
		if a.cosmetic[id] {
			// A cosmetic-only edit (dropCosmetic) needs no review.
			a.res.ConfirmedNotImpactedModels = append(a.res.ConfirmedNotImpactedModels, n.Name)
			continue
		}
		st, modified := a.cmp.State[id]
		if !modified && !a.impacted[id] {
			if n.ResourceType == dbt.Model && g.InCurrent(id) {
				a.res.ConfirmedNotImpactedModels = append(a.res.ConfirmedNotImpactedModels, n.Name)
			}
			continue
		}
		m := &Model{Name: n.Name, UniqueID: id, ResourceType: n.ResourceType, Materialized: n.Materialized(),
			Modifications: []string{}, DataImpact: Potential}
		if modified {
			s := st.ChangeStatus
			m.ChangeStatus, m.Classification = &s, "modified"
			m.CodeChange = a.codeChangeOf(id)
			for _, mod := range st.Modifications {
				m.Modifications = append(m.Modifications, string(mod))
			}
			a.res.ModifiedCount++
		} else {
			m.Classification = "downstream"
			downstream = append(downstream, m)
			a.res.DownstreamCount++
		}
		a.byID[id] = m
	}
	useCLL := a.in.UseColumnLineage == nil || *a.in.UseColumnLineage
	if useCLL && a.d.Lineage != nil {
		a.res.ClassificationSource = "column_lineage"
		a.prune(ctx, downstream)
	}
	for _, m := range a.byID {
		a.models = append(a.models, m)
	}
	sort.Slice(a.models, func(i, j int) bool {
		if (a.models[i].Classification == "modified") != (a.models[j].Classification == "modified") {
			return a.models[i].Classification == "modified"
		}
		return a.models[i].Name < a.models[j].Name
	})
	sort.Strings(a.res.ConfirmedNotImpactedModels)
	sort.Slice(a.res.NotImpactedByColumnLineage, func(i, j int) bool {
		return a.res.NotImpactedByColumnLineage[i].Name < a.res.NotImpactedByColumnLineage[j].Name
	})
	a.res.NotImpactedByColumnLineageCount = len(a.res.NotImpactedByColumnLineage)
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

func (a *analysis) change(id string) change {
	l := a.d.Lineage
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
// each model learns every changed column that reaches it (impacted_via),
// then rules out the downstream models none of them reaches.
func (a *analysis) prune(ctx context.Context, downstream []*Model) {
	l := a.d.Lineage
	changes := map[string]change{}
	rootsOf := map[string][]cll.NodeColumn{}
	for _, id := range a.changed {
		changes[id] = a.change(id)
		rootsOf[id] = changes[id].roots
	}
	for id, m := range a.byID {
		if m.Classification != "modified" || isAdded(m) || isRemoved(m) {
			continue
		}
		ch, ok := changes[id]
		if !ok {
			ch = a.change(id)
		}
		m.ChangeCategory, m.RowSetChanged = ch.category, ch.rowSetChanged
		if ch.known {
			m.CodeChangedColumns = ch.codeChanged
			if m.CodeChangedColumns == nil {
				m.CodeChangedColumns = []string{}
			}
			m.ChangedColumns = m.CodeChangedColumns
		}
	}
	via := map[string]map[string]bool{}
	cols := map[string]map[string]bool{}
	for _, id := range a.changed {
		for _, r := range rootsOf[id] {
			if ctx.Err() != nil {
				return
			}
			root := a.display(r)
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
	for _, m := range a.byID {
		v := via[m.UniqueID]
		for k := range v {
			// "<node>.*" (the node's rows) is evidence only for a model that
			// no changed column reaches (it reads rows, not columns).
			if strings.HasSuffix(k, ".*") && len(v) > 1 && hasColumnVia(v) {
				delete(v, k)
			}
		}
		if len(v) > 0 {
			m.ImpactedVia = sortedKeys(v)
			if m.Classification == "downstream" {
				m.CodeChangedColumns = sortedKeys(cols[m.UniqueID])
			}
		}
	}
	for _, m := range downstream {
		ml, ok := l.Current.Models[m.UniqueID]
		if len(via[m.UniqueID]) > 0 || !ok || ml.Opaque {
			// Reached, or lineage cannot rule it out.
			continue
		}
		reads := a.readsFromChanged(ml)
		if len(reads) == 0 {
			// It reads its upstream without naming columns (count(*), a
			// bare star lineage cannot expand): nothing rules it out.
			continue
		}
		against := a.checkedAgainst(m.UniqueID, rootsOf)
		reason := "column lineage: none of the changed columns upstream reaches the columns it reads"
		if len(against) == 0 {
			reason = "column lineage: its modified upstream models compute every column as before"
		}
		delete(a.byID, m.UniqueID)
		a.res.NotImpactedByColumnLineage = append(a.res.NotImpactedByColumnLineage, NotImpacted{
			Name: m.Name, UniqueID: m.UniqueID, Reason: reason, Reads: reads, CheckedAgainst: against,
		})
		if m.ResourceType == dbt.Model {
			a.res.ConfirmedNotImpactedModels = append(a.res.ConfirmedNotImpactedModels, m.Name)
		}
	}
}

// readsFromChanged lists the columns a model reads from its upstream
// nodes that are modified or downstream of a change.
func (a *analysis) readsFromChanged(ml *cll.ModelLineage) []string {
	seen := map[string]bool{}
	add := func(d cll.ColumnDep) {
		if d.Node == "" {
			return
		}
		if _, modified := a.cmp.State[d.Node]; !modified && !a.impacted[d.Node] {
			return
		}
		seen[a.display(cll.NodeColumn{Node: d.Node, Column: d.Column})] = true
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

// checkedAgainst lists the changed columns of a model's modified ancestors.
func (a *analysis) checkedAgainst(id string, rootsOf map[string][]cll.NodeColumn) []string {
	out := map[string]bool{}
	for _, anc := range a.cmp.Graph.Ancestors(id, -1) {
		for _, r := range rootsOf[anc] {
			out[a.display(r)] = true
		}
	}
	return sortedKeys(out)
}

// display names a column as model.column.
func (a *analysis) display(c cll.NodeColumn) string { return a.nodeName(c.Node) + "." + c.Column }

// nodeName is a node's name, or the last part of an id outside the graph.
func (a *analysis) nodeName(id string) string {
	if n, ok := a.cmp.Graph.Node(id); ok {
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
