package impact

import (
	"context"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/sqldiff"
)

// CodeChanges diffs the code of every modified node through the SQL parser
// (issue 24); Verdicts computes it once per comparison.
func CodeChanges(cmp *lineage.Comparison) map[string]*sqldiff.CodeChange {
	code := map[string]*sqldiff.CodeChange{}
	if cmp.Project == nil || cmp.Project.SingleEnv {
		return code
	}
	dialect := cmp.Project.Current.Manifest.Metadata.AdapterType
	for id, st := range cmp.State {
		// Only a change that can alter data has code worth diffing; a
		// config-only change keeps no code_change.
		if st.ChangeStatus != "modified" || !dataAffecting(st) {
			continue
		}
		bn, err1 := cmp.Project.Base.Manifest.Lookup(id)
		cn, err2 := cmp.Project.Current.Manifest.Lookup(id)
		if err1 != nil || err2 != nil {
			continue
		}
		if cc := sqldiff.ForNodes(dialect, bn, cn, cmp.Project.Base.Manifest, cmp.Project.Current.Manifest); cc != nil {
			code[id] = cc
		}
	}
	return code
}

// ClassifyCode is Classify with the structural code diff: the one place
// where a cosmetic-only edit stops counting as a change. A node modified
// in its body alone (no macro, contract or config change) whose SQL the
// parser finds cosmetic leaves the selection, with what only it reached,
// and is not impacted (Node.Cosmetic); its code_change says cosmetic.
// keepCosmetic keeps dbt's plain state:modified.body meaning instead (the
// selector state:modified.body itself never changes).
func ClassifyCode(ctx context.Context, cmp *lineage.Comparison, impacted []string, l *Lineage, keepCosmetic bool) *Verdicts {
	code := CodeChanges(cmp)
	cosmetic := map[string]bool{}
	if !keepCosmetic {
		for id, cc := range code {
			if st := cmp.State[id]; cc.Cosmetic && len(st.Modifications) == 1 && st.Has(dbt.ModBody) {
				cosmetic[id] = true
			}
		}
	}
	if len(cosmetic) > 0 {
		keep := map[string]bool{}
		for _, id := range impacted {
			if st, ok := cmp.State[id]; ok && !cosmetic[id] && dataAffecting(st) {
				keep[id] = true
			}
		}
		reached := cmp.Graph.DescendantsOf(keep, -1)
		kept := impacted[:0:0]
		for _, id := range impacted {
			if !cosmetic[id] && (keep[id] || reached[id]) {
				kept = append(kept, id)
			}
		}
		impacted = kept
	}
	v := Classify(ctx, cmp, impacted, l)
	v.code = code
	for id := range cosmetic {
		if nd, ok := v.nodes[id]; ok {
			nd.Verdict, nd.Cosmetic = VerdictNotImpacted, true
		}
	}
	return v
}

// codeChangeOf is the code_change of a modified model's entry: without
// the change list in a compact response (the summary line says it).
func (a *analysis) codeChangeOf(id string) *sqldiff.CodeChange {
	cc, ok := a.verdicts.code[id]
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
	if len(lines) == 0 && len(r.CosmeticOnlyModels) == 0 {
		return
	}
	b.WriteString("\n## Code changes\n\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if len(r.CosmeticOnlyModels) > 0 {
		b.WriteString("- cosmetic only, not impacted: " + strings.Join(r.CosmeticOnlyModels, ", ") + "\n")
	}
}

// CosmeticOnly names the models whose only change is a cosmetic code edit
// (they are in ConfirmedNotImpactedModels).
func (r *Result) CosmeticOnly() []string { return r.CosmeticOnlyModels }
