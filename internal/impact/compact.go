package impact

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// The JSON forms of a result. The Go values always carry every field (the
// summary and the text renderer read them); only the JSON is compacted.

// modelFields is Model without its methods, for encoding.
type modelFields Model

// compactModel is the short row of a model whose value diff found no
// change: the seed's triage fields, nothing to investigate.
type compactModel struct {
	Name             string  `json:"name"`
	ChangeStatus     *string `json:"change_status"`
	Materialized     string  `json:"materialized"`
	DataImpact       string  `json:"data_impact"`
	AffectedRowCount *int64  `json:"affected_row_count"`
}

// MarshalJSON writes a full entry with every seed field present (null
// when unknown: schema_changes null means "not compared", [] "unchanged"),
// or the short row of a compact response.
func (m *Model) MarshalJSON() ([]byte, error) {
	if m.compact {
		return json.Marshal(compactModel{Name: m.Name, ChangeStatus: m.ChangeStatus, Materialized: m.Materialized,
			DataImpact: m.DataImpact, AffectedRowCount: m.AffectedRowCount})
	}
	// The outer fields shadow the embedded omitempty ones.
	return json.Marshal(struct {
		*modelFields
		RowCount      *RowCount      `json:"row_count"`
		SchemaChanges []SchemaChange `json:"schema_changes"`
		ValueDiff     *ValueDiff     `json:"value_diff"`
		NextAction    *NextAction    `json:"next_action"`
	}{(*modelFields)(m), m.RowCount, m.SchemaChanges, m.ValueDiff, m.NextAction})
}

type resultFields Result

// MarshalJSON writes the column-lineage evidence at every detail level: a
// ruled-out model is named with what it reads and what it was checked
// against, never only counted.
func (r *Result) MarshalJSON() ([]byte, error) {
	if r.Detail == DetailCompact {
		// Compact: the evidence lists are cut to a few columns each (on a
		// large project checked_against can name hundreds).
		// Past MaxCompactEvidence ruled-out models only the first have
		// their evidence (all are named in confirmed_not_impacted_models;
		// not_impacted_by_column_lineage_count counts them; detail=full).
		list := r.NotImpactedByColumnLineage
		if len(list) > MaxCompactEvidence {
			list = list[:MaxCompactEvidence]
		}
		short := make([]NotImpacted, len(list))
		for i, n := range list {
			n.Reads, n.CheckedAgainst = firstFew(n.Reads), firstFew(n.CheckedAgainst)
			short[i] = n
		}
		return json.Marshal(struct {
			*resultFields
			NotImpactedByColumnLineage []NotImpacted `json:"not_impacted_by_column_lineage"`
		}{(*resultFields)(r), short})
	}
	return json.Marshal(struct {
		*resultFields
		NotImpactedByColumnLineage []NotImpacted `json:"not_impacted_by_column_lineage"`
	}{(*resultFields)(r), r.NotImpactedByColumnLineage})
}

// MaxCompactEvidence is how many ruled-out models a compact result gives
// evidence for.
const MaxCompactEvidence = 10

// maxEvidence is how many columns a compact evidence list names.
const maxEvidence = 3

// firstFew cuts a list to maxEvidence entries and a "… N more" entry.
func firstFew(l []string) []string {
	if len(l) <= maxEvidence+1 {
		return l
	}
	return append(append([]string{}, l[:maxEvidence]...), fmt.Sprintf("… %d more (detail=full)", len(l)-maxEvidence))
}

// MaxNamedNotImpacted is how many not-impacted models a compact result
// names in full; past it, only those near the change are named.
const MaxNamedNotImpacted = 100

// summariseNotImpacted keeps a compact result small on a large project:
// past MaxNamedNotImpacted not-impacted models it names only those in the
// changed subgraph — ruled out by column lineage, or siblings (children of
// a changed model's parents, the models an agent may ask about) — and
// counts the rest by package and folder (detail=full names every one).
func (a *analysis) summariseNotImpacted() {
	names := a.res.ConfirmedNotImpactedModels
	if len(names) <= MaxNamedNotImpacted {
		return
	}
	g := a.cmp.Graph
	near := map[string]bool{}
	for _, n := range a.res.NotImpactedByColumnLineage {
		near[n.UniqueID] = true
	}
	for id, st := range a.cmp.State {
		if !dataAffecting(st) {
			continue
		}
		for _, p := range g.Parents(id) {
			for _, c := range g.Children(p) {
				near[c] = true
			}
		}
	}
	// Named first: the ruled-out models whose evidence a compact result
	// carries, then siblings, then the other ruled-out models, at most
	// MaxNamedNotImpacted in all; the rest are counted.
	rank := map[string]int{}
	for i, n := range a.res.NotImpactedByColumnLineage {
		if i < MaxCompactEvidence {
			rank[n.UniqueID] = 0
		} else {
			rank[n.UniqueID] = 2
		}
	}
	var cands []*dbt.Node
	keep := map[string]bool{}
	sum := &NotImpactedSummary{ByPackage: map[string]int{}, ByFolder: map[string]int{}}
	count := func(n *dbt.Node) {
		sum.Count++
		sum.ByPackage[n.PackageName]++
		sum.ByFolder[folderOf(n)]++
	}
	for _, id := range a.scope {
		n, ok := g.Node(id)
		if !ok || n.ResourceType != dbt.Model || !g.InCurrent(id) || a.verdicts.Verdict(id) == VerdictImpacted {
			continue
		}
		if near[id] {
			if _, ok := rank[id]; !ok {
				rank[id] = 1
			}
			cands = append(cands, n)
			continue
		}
		count(n)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if rank[cands[i].UniqueID] != rank[cands[j].UniqueID] {
			return rank[cands[i].UniqueID] < rank[cands[j].UniqueID]
		}
		return cands[i].Name < cands[j].Name
	})
	for i, n := range cands {
		if i < MaxNamedNotImpacted {
			keep[n.Name] = true
		} else {
			count(n)
		}
	}
	out := make([]string, 0, len(keep))
	for _, name := range names {
		if keep[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	a.res.ConfirmedNotImpactedModels = out
	a.res.NotImpactedSummary = sum
}

// folderOf is the folder of a model's file under its model path
// (models/staging/stg_x.sql → staging; top level → ".").
func folderOf(n *dbt.Node) string {
	p := n.OriginalFilePath
	if p == "" {
		p = n.Path
	}
	dir := path.Dir(strings.ReplaceAll(p, "\\", "/"))
	if i := strings.IndexByte(dir, '/'); i >= 0 {
		return dir[i+1:]
	}
	return "."
}
