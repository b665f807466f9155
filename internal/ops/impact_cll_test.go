package ops

import (
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/impact"
)

func cllScenario(p *dbtfixture.Project) {
	p.Seed("raw_items", dbtfixture.CSV("id,amount,status\n1,10,open\n2,20,closed\n3,30,open\n"))
	p.Model("stg_items", dbtfixture.Table,
		"select id, amount, status from {{ ref('raw_items') }}",
		"select id, amount * 2 as amount, status from {{ ref('raw_items') }}").Tests(dbtfixture.Unique("id"))
	status := "select id, status from {{ ref('stg_items') }}"
	p.Model("item_status", dbtfixture.Table, status, status).Tests(dbtfixture.Unique("id"))
	amounts := "select id, amount from {{ ref('stg_items') }}"
	p.Model("item_amounts", dbtfixture.Table, amounts, amounts).Tests(dbtfixture.Unique("id"))
	// Downstream of a pruned model: not impacted either.
	open := "select id from {{ ref('item_status') }} where status = 'open'"
	p.Model("open_items", dbtfixture.View, open, open)
}

func TestImpactAnalysisPrunesWithColumnLineage(t *testing.T) {
	onEveryWarehouse(t, cllScenario, func(t *testing.T, e *env) {
		r := callOp[impact.Result](t, e.session, "impact_analysis", map[string]any{})
		if r.ClassificationSource != "column_lineage" {
			t.Fatalf("classification_source = %s", r.ClassificationSource)
		}
		stg := model(t, r, "stg_items")
		if stg.ChangeCategory != "partial_breaking" || strings.Join(stg.CodeChangedColumns, ",") != "amount" {
			t.Errorf("stg_items change = %s %v", stg.ChangeCategory, stg.CodeChangedColumns)
		}
		amounts := model(t, r, "item_amounts")
		if amounts.Classification != "downstream" || len(amounts.ImpactedVia) == 0 || !strings.Contains(amounts.ImpactedVia[0], "stg_items.amount") {
			t.Errorf("item_amounts evidence = %v", amounts.ImpactedVia)
		}
		if amounts.DataImpact != impact.Confirmed || *amounts.AffectedRowCount != 3 {
			t.Errorf("item_amounts = %s %v", amounts.DataImpact, deref(amounts.AffectedRowCount))
		}
		pruned := map[string]impact.NotImpacted{}
		for _, n := range r.NotImpactedByColumnLineage {
			pruned[n.Name] = n
		}
		st, ok := pruned["item_status"]
		if !ok || strings.Join(st.Reads, ",") != "stg_items.id,stg_items.status" || strings.Join(st.CheckedAgainst, ",") != "stg_items.amount" || st.Reason == "" {
			t.Errorf("item_status must be not impacted with evidence, got %+v (pruned %v)", st, pruned)
		}
		if o, ok := pruned["open_items"]; !ok || strings.Join(o.Reads, ",") != "item_status.id,item_status.status" || strings.Join(o.CheckedAgainst, ",") != "stg_items.amount" {
			t.Errorf("open_items (downstream of a pruned model only) must be not impacted with evidence: %+v", pruned)
		}
		if got := strings.Join(r.ConfirmedNotImpactedModels, ","); got != "item_status,open_items" {
			t.Errorf("confirmed_not_impacted_models %s: the ruled-out models belong in it", got)
		}
		for _, m := range r.ConfirmedImpactedModels {
			if m.Name == "item_status" || m.Name == "open_items" {
				t.Errorf("%s must not be in impacted_models", m.Name)
			}
		}

		r = callOp[impact.Result](t, e.session, "impact_analysis", map[string]any{"use_column_lineage": false})
		if r.ClassificationSource != "lineage_dag" || len(r.NotImpactedByColumnLineage) != 0 {
			t.Fatalf("model-level answer expected, got %s with %d pruned", r.ClassificationSource, len(r.NotImpactedByColumnLineage))
		}
		if m := model(t, r, "item_status"); m.Classification != "downstream" || m.DataImpact != impact.None {
			t.Errorf("item_status at model level = %s %s", m.Classification, m.DataImpact)
		}
		model(t, r, "open_items")
	})
}

// A modified seed has no column lineage of its own; the models reading it
// must stay impacted.
func TestImpactAnalysisKeepsReadersOfAModifiedSeed(t *testing.T) {
	scenario := func(p *dbtfixture.Project) {
		p.SeedSides("raw_prices", dbtfixture.CSV("id,price\n1,10\n2,20\n"), dbtfixture.CSV("id,price\n1,10\n2,25\n"))
		prices := "select id, price from {{ ref('raw_prices') }}"
		p.Model("prices", dbtfixture.Table, prices, prices).Tests(dbtfixture.Unique("id"))
	}
	onEveryWarehouse(t, scenario, func(t *testing.T, e *env) {
		r := callOp[impact.Result](t, e.session, "impact_analysis", map[string]any{})
		m := model(t, r, "prices")
		if m.Classification != "downstream" || m.DataImpact != impact.Confirmed || *m.AffectedRowCount != 1 {
			t.Errorf("prices = %s %s %v (pruned: %+v)", m.Classification, m.DataImpact, deref(m.AffectedRowCount), r.NotImpactedByColumnLineage)
		}
	})
}
