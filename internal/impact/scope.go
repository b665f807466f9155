package impact

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/selector"
)

// analysis is one run of Analyze.
type analysis struct {
	d   Deps
	in  Input
	res *Result
	cmp *lineage.Comparison
	// scope are the node ids the caller asked about (every node by default).
	scope []string
	// verdicts is the impact model of the whole comparison.
	verdicts *Verdicts
	// models are the reported impacted models, modified first.
	models []*Model
	byID   map[string]*Model
	keys   *KeyCache

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

func newAnalysis(ctx context.Context, d Deps, in Input, res *Result) (*analysis, error) {
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
	useCLL := in.UseColumnLineage == nil || *in.UseColumnLineage
	switch {
	case d.Verdicts != nil && !d.KeepCosmetic && (useCLL || d.Verdicts.Source == "lineage_dag"):
		a.verdicts = d.Verdicts
	default:
		ids, err := d.Select(DefaultSelect)
		if err != nil {
			return nil, err
		}
		var l *Lineage
		if useCLL {
			l = d.Lineage
		}
		a.verdicts = ClassifyCode(ctx, a.cmp, ids, l, d.KeepCosmetic)
	}
	return a, nil
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

// classify builds an entry for every reported model the impact model
// calls impacted (modified, or downstream of a change and not ruled out by
// column lineage) and lists the others as not impacted, with column
// lineage's evidence for those it rules out.
func (a *analysis) classify(ctx context.Context) {
	g := a.cmp.Graph
	v := a.verdicts
	a.res.ClassificationSource = v.Source
	for _, id := range a.scope {
		n, ok := g.Node(id)
		if !ok || !tracked[n.ResourceType] || n.Disabled {
			continue
		}
		nd, _ := v.Node(id)
		if nd != nil && nd.Cosmetic && n.ResourceType == dbt.Model {
			a.res.CosmeticOnlyModels = append(a.res.CosmeticOnlyModels, n.Name)
		}
		if nd == nil || nd.Verdict != VerdictImpacted {
			// Only current models are listed (the contract's rule); the
			// evidence goes with the name so the counts add up.
			if n.ResourceType == dbt.Model && g.InCurrent(id) {
				a.res.ConfirmedNotImpactedModels = append(a.res.ConfirmedNotImpactedModels, n.Name)
				if nd != nil && nd.RuledOut != nil {
					a.res.NotImpactedByColumnLineage = append(a.res.NotImpactedByColumnLineage, *nd.RuledOut)
				}
			}
			continue
		}
		m := &Model{Name: n.Name, UniqueID: id, ResourceType: n.ResourceType, Materialized: n.Materialized(),
			Modifications: append([]string{}, nd.Modifications...), DataImpact: Potential,
			ImpactedVia: nd.ImpactedVia, ImpactedColumns: nd.ImpactedColumns}
		if nd.Change != ChangeDownstream {
			s := nd.Change
			m.ChangeStatus, m.Classification = &s, "modified"
			if s == "modified" {
				m.ChangeCategory, m.RowSetChanged, m.CodeChangedColumns = nd.Category, nd.RowSetChanged, nd.CodeChanged
				m.CodeChange = a.codeChangeOf(id)
			}
			a.res.ModifiedCount++
		} else {
			m.Classification = ChangeDownstream
			a.res.DownstreamCount++
		}
		a.byID[id] = m
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

// nodeName is a node's name, or the last part of an id outside the graph.
func (a *analysis) nodeName(id string) string { return nodeName(a.cmp, id) }
