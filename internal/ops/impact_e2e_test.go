package ops

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/impact"
)

// callOp runs a registered operation through the same JSON path as the CLI
// and the MCP server.
func callOp[Out any](t *testing.T, s *Session, name string, args map[string]any) *Out {
	t.Helper()
	out, err := callOpErr[Out](s, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

func callOpErr[Out any](s *Session, name string, args map[string]any) (*Out, error) {
	op, ok := Default().Get(name)
	if !ok {
		return nil, errors.New("no operation " + name)
	}
	raw, _ := json.Marshal(args)
	out, err := op.CallJSON(context.Background(), s, raw)
	if err != nil {
		return nil, err
	}
	return out.(*Out), nil
}

// triageScenario is the pull request the acceptance criteria describe.
func triageScenario(p *dbtfixture.Project) {
	p.Table("customers", []string{"id INTEGER", "name VARCHAR", "age INTEGER"},
		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}},
		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}, {3, "Charlie", 35}}).Tests(dbtfixture.Unique("id"))
	p.Table("orders", []string{"id INTEGER", "amount INTEGER"},
		dbtfixture.Rows{{1, 100}, {2, 200}},
		dbtfixture.Rows{{1, 150}, {2, 200}, {3, 300}}).Tests(dbtfixture.Unique("id"))
	p.Table("payments", []string{"id INTEGER", "amount INTEGER"},
		dbtfixture.Rows{{1, 100}, {2, 200}},
		dbtfixture.Rows{{1, 999}, {2, 888}}).Tests(dbtfixture.Unique("id"))
	p.Table("unrelated", []string{"x INTEGER"}, dbtfixture.Rows{{1}}, dbtfixture.Rows{{1}})
	ids := "select id from {{ ref('orders') }} where id <= 2"
	p.Model("order_ids", dbtfixture.Table, ids, ids).Tests(dbtfixture.Unique("id"))
	p.Model("v_customers", dbtfixture.View,
		"select id, name from {{ ref('unrelated') }}, (select 1 as id, 'a' as name)",
		"select id, name, 42 as age from {{ ref('unrelated') }}, (select 1 as id, 'a' as name)")
	dv := "select id from {{ ref('customers') }}"
	p.Model("customer_ids_view", dbtfixture.View, dv, dv)
}

func model(t *testing.T, r *impact.Result, name string) *impact.Model {
	t.Helper()
	for _, m := range r.ConfirmedImpactedModels {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("%s is not among the impacted models", name)
	return nil
}

func i64(t *testing.T, what string, got *int64, want int64) {
	t.Helper()
	if got == nil || *got != want {
		t.Errorf("%s = %v, want %d", what, deref(got), want)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func noCLL() *bool { f := false; return &f }

func TestImpactAnalysisEndToEnd(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		r := callOp[impact.Result](t, e.session, "impact_analysis", map[string]any{"use_column_lineage": false})
		if len(r.Errors) != 0 {
			t.Fatalf("errors: %+v", r.Errors)
		}
		if r.ClassificationSource != "lineage_dag" {
			t.Errorf("classification_source = %s", r.ClassificationSource)
		}

		c := model(t, r, "customers")
		i64(t, "customers base", c.RowCount.Base, 2)
		i64(t, "customers current", c.RowCount.Current, 3)
		i64(t, "customers delta", c.RowCount.Delta, 1)
		if c.RowCount.DeltaPct == nil || *c.RowCount.DeltaPct != 50.0 {
			t.Errorf("customers delta_pct = %v, want 50.0", deref(c.RowCount.DeltaPct))
		}
		if c.DataImpact != impact.Confirmed || c.ValueDiff.RowsAdded != 1 || c.ValueDiff.RowsChanged != 0 || c.ValueDiff.RowsRemoved != 0 {
			t.Errorf("customers = %s %+v", c.DataImpact, c.ValueDiff)
		}

		o := model(t, r, "orders")
		if o.DataImpact != impact.Confirmed || o.ValueDiff == nil {
			t.Fatalf("orders data_impact = %s, skipped %q", o.DataImpact, o.ValueDiffSkipped)
		}
		if v := o.ValueDiff; v.RowsChanged != 1 || v.RowsAdded != 1 || v.RowsRemoved != 0 || v.AffectedRowCount != 2 {
			t.Errorf("orders value diff = %+v", v)
		}
		if got := o.ValueDiff.Columns["amount"].AffectedRowCount; got != 1 {
			t.Errorf("orders.amount affected = %d, want 1", got)
		}
		i64(t, "orders affected_row_count", o.AffectedRowCount, 2)
		if *o.ChangeStatus != "modified" || o.Classification != "modified" {
			t.Errorf("orders classification %s/%s", o.Classification, *o.ChangeStatus)
		}

		d := model(t, r, "order_ids")
		if d.Classification != "downstream" || d.ChangeStatus != nil || d.DataImpact != impact.None || d.NextAction != nil {
			t.Errorf("order_ids = %s %v %s next=%+v", d.Classification, deref(d.ChangeStatus), d.DataImpact, d.NextAction)
		}
		i64(t, "order_ids affected", d.AffectedRowCount, 0)

		p := model(t, r, "payments")
		i64(t, "payments delta", p.RowCount.Delta, 0)
		i64(t, "payments affected", p.AffectedRowCount, 2)
		if p.NextAction == nil || p.NextAction.Tool != "profile_diff" || p.NextAction.Priority != "medium" || strings.Join(p.NextAction.Columns, ",") != "amount" {
			t.Errorf("payments next_action = %+v", p.NextAction)
		}

		// A modified view keyed by name: value-diffed, its existing columns
		// unchanged; the added column is a schema change.
		v := model(t, r, "v_customers")
		if v.DataImpact != impact.None || v.KeySource != impact.KeyFromName || !v.KeyVerified || v.NextAction != nil {
			t.Errorf("modified view = %s key %v (%s) next=%+v; %s", v.DataImpact, v.PrimaryKey, v.KeySource, v.NextAction, v.ValueDiffSkipped)
		}
		i64(t, "v_customers affected", v.AffectedRowCount, 0)
		if len(v.SchemaChanges) != 1 || v.SchemaChanges[0].Column != "age" || v.SchemaChanges[0].ChangeStatus != "added" {
			t.Errorf("v_customers schema_changes = %+v", v.SchemaChanges)
		}

		dv := model(t, r, "customer_ids_view")
		if dv.DataImpact != impact.Confirmed || dv.ValueDiff == nil || dv.ValueDiff.RowsAdded != 1 || dv.NextAction != nil {
			t.Errorf("downstream view = %s %+v next=%+v; %s", dv.DataImpact, dv.ValueDiff, dv.NextAction, dv.ValueDiffSkipped)
		}

		if strings.Join(r.ConfirmedNotImpactedModels, ",") != "unrelated" {
			t.Errorf("not impacted = %v, want [unrelated]", r.ConfirmedNotImpactedModels)
		}
		if r.MaxAffectedRowCount != 2 {
			t.Errorf("max_affected_row_count = %d, want 2", r.MaxAffectedRowCount)
		}
		types := map[string]bool{}
		for _, sc := range r.SuggestedChecks {
			types[sc.Type] = true
		}
		if !types["row_count_diff"] || !types["value_diff"] || !types["schema_diff"] {
			t.Errorf("suggested checks = %+v", r.SuggestedChecks)
		}
		if !strings.Contains(r.Guidance, "data_impact") || !strings.Contains(r.Guidance, "next_action") {
			t.Error("guidance must teach data_impact and next_action")
		}
		raw, _ := json.Marshal(r)
		for _, banned := range []string{"total_affected_row_count", "suggested_deep_dives"} {
			if strings.Contains(string(raw), banned) {
				t.Errorf("result must not contain %s", banned)
			}
		}
	})
}

func TestImpactAnalysisSkipFlags(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		r := callOp[impact.Result](t, e.session, "impact_analysis", map[string]any{"skip_downstream_value_diff": true, "use_column_lineage": false})
		if m := model(t, r, "order_ids"); m.DataImpact != impact.Potential || m.ValueDiffSkipped != "skip_downstream_value_diff" || m.NextAction == nil || m.NextAction.Priority != "medium" {
			t.Errorf("order_ids with skip_downstream_value_diff = %s %q %+v", m.DataImpact, m.ValueDiffSkipped, m.NextAction)
		}
		if m := model(t, r, "customer_ids_view"); m.DataImpact != impact.Potential || m.NextAction.Priority != "low" || m.NextAction.Tool != "query_diff" ||
			!reflect.DeepEqual(m.NextAction.Arguments, map[string]any{"sql_template": `select "id" from {{ ref('customer_ids_view') }}`, "primary_keys": []string{"id"}}) {
			t.Errorf("downstream view = %s %+v", m.DataImpact, m.NextAction)
		}
		if m := model(t, r, "orders"); m.DataImpact != impact.Confirmed {
			t.Errorf("modified orders must still be value-diffed: %s", m.DataImpact)
		}

		e.queries.sql = nil
		r = callOp[impact.Result](t, e.session, "impact_analysis", map[string]any{"skip_value_diff": true, "skip_downstream_value_diff": false, "use_column_lineage": false})
		for _, m := range r.ConfirmedImpactedModels {
			if m.DataImpact != impact.Potential || m.ValueDiff != nil || m.AffectedRowCount != nil {
				t.Errorf("%s with skip_value_diff = %s", m.Name, m.DataImpact)
			}
		}
		for _, q := range e.queries.sql {
			lq := strings.ToLower(q)
			if !strings.Contains(lq, "count(") || strings.Contains(lq, "join") {
				t.Errorf("skip_value_diff ran diff SQL: %s", q)
			}
		}
		if len(e.queries.sql) == 0 {
			t.Error("row counts should still run")
		}
	})
}

func TestImpactAnalysisIsResilient(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		e.drop(dbtfixture.Current, "payments")
		r := callOp[impact.Result](t, e.session, "impact_analysis", map[string]any{"use_column_lineage": false})
		found := false
		for _, er := range r.Errors {
			if er.Model == "payments" {
				found = true
			}
		}
		if !found {
			t.Errorf("a model missing in the warehouse must add an error: %+v", r.Errors)
		}
		if p := model(t, r, "payments"); p.RowCount == nil || p.RowCount.CurrentStatus != diff.StatusTableNotFound || p.DataImpact != impact.Potential {
			t.Errorf("payments = %+v %s", p.RowCount, p.DataImpact)
		}
		if o := model(t, r, "orders"); o.DataImpact != impact.Confirmed {
			t.Errorf("other models still verified: orders = %s", o.DataImpact)
		}

		// A failing schema step leaves the value diffs alone.
		deps, err := impactDeps(context.Background(), e.session)
		if err != nil {
			t.Fatal(err)
		}
		deps.SchemaDiff = func(context.Context, diff.Env, diff.SchemaDiffInput) (*diff.SchemaDiffResult, error) {
			return nil, errors.New("catalog unreadable")
		}
		r, err = impact.Analyze(context.Background(), deps, impact.Input{UseColumnLineage: noCLL()})
		if err != nil {
			t.Fatal(err)
		}
		if r.SchemaCoverage.Status != "unknown" || model(t, r, "orders").DataImpact != impact.Confirmed || model(t, r, "orders").SchemaChanges != nil {
			t.Errorf("schema failure: coverage %s, orders %s", r.SchemaCoverage.Status, model(t, r, "orders").DataImpact)
		}
		schemaErr := false
		for _, er := range r.Errors {
			schemaErr = schemaErr || (er.Step == "schema_diff" && er.Message == "catalog unreadable")
		}
		if !schemaErr {
			t.Errorf("schema step error not reported: %+v", r.Errors)
		}
	})
}

func TestImpactAnalysisSingleEnvironment(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		if err := os.RemoveAll(filepath.Join(e.built.Dir, "target-base")); err != nil {
			t.Fatal(err)
		}
		r := callOp[impact.Result](t, e.session, "impact_analysis", map[string]any{})
		if !r.SingleEnv || !strings.Contains(r.Warning, "target-base") || len(r.ConfirmedImpactedModels) != 0 || len(r.ConfirmedNotImpactedModels) != 7 {
			t.Errorf("single env: %v %q %d models", r.SingleEnv, r.Warning, len(r.ConfirmedImpactedModels))
		}
	})
}
