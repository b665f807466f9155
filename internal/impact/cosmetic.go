package impact

import (
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/sqldiff"
)

// codeChanges diffs the code of every modified node through the SQL
// parser (issue 24), once per analysis.
func (a *analysis) codeChanges() {
	a.code = map[string]*sqldiff.CodeChange{}
	if a.cmp.Project == nil || a.cmp.Project.SingleEnv {
		return
	}
	dialect := a.cmp.Project.Current.Manifest.Metadata.AdapterType
	for _, id := range a.changed {
		if st := a.cmp.State[id]; st.ChangeStatus != "modified" {
			continue
		}
		bn, err1 := a.cmp.Project.Base.Manifest.Lookup(id)
		cn, err2 := a.cmp.Project.Current.Manifest.Lookup(id)
		if err1 != nil || err2 != nil {
			continue
		}
		if cc := sqldiff.ForNodes(dialect, bn, cn, a.cmp.Project.Base.Manifest, a.cmp.Project.Current.Manifest); cc != nil {
			a.code[id] = cc
		}
	}
}

// dropCosmetic is the one place where a cosmetic-only edit stops counting
// as a change: a node modified in its body alone (no macro, contract or
// config change) whose SQL the parser finds cosmetic leaves the changed and
// impacted sets, with what only it reached; it is listed in
// confirmed_not_impacted_models (its code_change, via get_model, says
// cosmetic) and in the summary's Code changes. Deps.KeepCosmetic keeps
// dbt's plain state:modified.body meaning instead (the selector
// state:modified.body itself never changes).
func (a *analysis) dropCosmetic() {
	a.cosmetic = map[string]bool{}
	if a.d.KeepCosmetic {
		return
	}
	for id, cc := range a.code {
		st := a.cmp.State[id]
		if cc.Cosmetic && len(st.Modifications) == 1 && st.Has(dbt.ModBody) {
			a.cosmetic[id] = true
		}
	}
	if len(a.cosmetic) == 0 {
		return
	}
	keep := map[string]bool{}
	var changed []string
	for _, id := range a.changed {
		if !a.cosmetic[id] {
			keep[id] = true
			changed = append(changed, id)
		}
	}
	a.changed = changed
	reached := a.cmp.Graph.DescendantsOf(keep, -1)
	for id := range a.impacted {
		if !keep[id] && !reached[id] {
			delete(a.impacted, id)
		}
	}
	for id := range a.cosmetic {
		if n, ok := a.cmp.Graph.Node(id); ok {
			a.res.cosmeticOnly = append(a.res.cosmeticOnly, n.Name)
		}
	}
	sort.Strings(a.res.cosmeticOnly)
}

// codeChangeOf is the code_change of a modified model's entry: without
// the change list in a compact response (the summary line says it).
func (a *analysis) codeChangeOf(id string) *sqldiff.CodeChange {
	cc, ok := a.code[id]
	if !ok {
		return nil
	}
	if a.in.Detail == DetailFull {
		return cc
	}
	short := *cc
	short.Changes = nil
	return &short
}

// writeCodeChanges is the summary's "Code changes" section: the one-line
// code_change of each modified model, then the cosmetic-only edits.
func writeCodeChanges(b *strings.Builder, r *Result) {
	if r == nil {
		return
	}
	var lines []string
	for _, m := range r.ConfirmedImpactedModels {
		if m.CodeChange != nil {
			lines = append(lines, "- **"+cell(m.Name)+"**: "+oneLine(m.CodeChange.Summary))
		}
	}
	if len(lines) == 0 && len(r.cosmeticOnly) == 0 {
		return
	}
	b.WriteString("\n## Code changes\n\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if len(r.cosmeticOnly) > 0 {
		b.WriteString("- cosmetic only, not impacted: " + strings.Join(r.cosmeticOnly, ", ") + "\n")
	}
}

// CosmeticOnly names the models whose only change is a cosmetic code edit
// (they are in ConfirmedNotImpactedModels).
func (r *Result) CosmeticOnly() []string { return r.cosmeticOnly }
