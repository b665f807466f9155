package ops

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/impact/impacttest"
	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/selector"
)

// pointBaseAtCurrent makes the base manifest's model resolve to the
// current build's relation, as when both targets build into one schema.
func pointBaseAtCurrent(t *testing.T, b *dbtfixture.Built, model string) {
	t.Helper()
	path := filepath.Join(b.Paths.BaseDir(), "manifest.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]any
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	n := man["nodes"].(map[string]any)["model."+b.ProjectName+"."+model].(map[string]any)
	n["schema"] = b.CurrentSchema
	n["relation_name"] = strings.Replace(n["relation_name"].(string), `"`+b.BaseSchema+`"`, `"`+b.CurrentSchema+`"`, 1)
	if data, err = json.Marshal(man); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// callAnyErr runs an operation whatever its result type.
func callAnyErr(s *Session, name string, args map[string]any) (any, error) {
	op, ok := Default().Get(name)
	if !ok {
		return nil, errors.New("no operation " + name)
	}
	raw, _ := json.Marshal(args)
	return op.CallJSON(context.Background(), s, raw)
}

const allowEmptyHint = " (" + selector.AllowEmptyHint + ")"

// A select or exclude term that names nothing is an error with the
// closest names in every operation that selects; allow_empty accepts it;
// a valid selection that happens to be empty comes back with a warning.
func TestSelectTermMatchingNothing(t *testing.T) {
	impacttest.OnEveryWarehouse(t, impacttest.Scenario, func(t *testing.T, tg impacttest.Target) {
		s := scenarioSession(t, tg)
		const typo = `select term "smal_payments" matches no node; did you mean "small_payments", "raw_payments" or "stg_payments"?` + allowEmptyHint
		for _, op := range []string{"select_nodes", "lineage_diff", "row_count_diff", "schema_diff", "render_lineage_mermaid", "impact_analysis", "summary"} {
			_, err := callAnyErr(s, op, map[string]any{"select": "smal_payments"})
			if err == nil || err.Error() != typo {
				t.Errorf("%s --select smal_payments: %v\nwant %s", op, err, typo)
			}
			if !errors.Is(err, selector.ErrNoMatch) {
				t.Errorf("%s: %v does not wrap selector.ErrNoMatch", op, err)
			}
			if _, err := callAnyErr(s, op, map[string]any{"select": "smal_payments", "allow_empty": true}); err != nil {
				t.Errorf("%s --select smal_payments --allow-empty: %v", op, err)
			}
		}
		_, err := callOpErr[SelectResult](s, "select_nodes", map[string]any{"select": "tag:finance", "exclude": "paid_order"})
		if want := `exclude term "paid_order" matches no node; did you mean "paid_orders", "big_orders" or "raw_orders"?` + allowEmptyHint; err == nil || err.Error() != want {
			t.Errorf("exclude typo: %v\nwant %s", err, want)
		}
		r := callOp[SelectResult](t, s, "select_nodes", map[string]any{"select": "smal_payments", "allow_empty": true})
		if len(r.Nodes) != 0 || r.Warning != `select "smal_payments" matches no node in this comparison: every term names something in the project, but together (with exclude, packages and view_mode) they leave none, e.g. a state: term when nothing of that kind changed` {
			t.Errorf("allow_empty: %v %q", r.Nodes, r.Warning)
		}
		// No macro changed: a state term matching nothing is no mistake.
		r = callOp[SelectResult](t, s, "select_nodes", map[string]any{"select": "state:modified.macros"})
		if len(r.Nodes) != 0 || !strings.HasPrefix(r.Warning, `select "state:modified.macros" matches no node in this comparison`) {
			t.Errorf("state:modified.macros: %v %q", r.Nodes, r.Warning)
		}
		ld := callOp[lineage.DiffResult](t, s, "lineage_diff", map[string]any{"select": "state:modified.macros"})
		if ld.ReturnedNodes != 0 || !strings.HasPrefix(ld.Warning, `select "state:modified.macros" matches no node`) {
			t.Errorf("lineage_diff state:modified.macros: %d nodes, %q", ld.ReturnedNodes, ld.Warning)
		}
		ia := callOp[impact.Result](t, s, "impact_analysis", map[string]any{"select": "state:modified.macros"})
		if want := `select "state:modified.macros" matches no node in this comparison, so no model is listed: every term names something in the project, but together they leave none, e.g. a state: term when nothing of that kind changed.`; ia.Warning != want {
			t.Errorf("impact_analysis state:modified.macros warning %q", ia.Warning)
		}
		rc := callOp[diff.RowCountDiffResult](t, s, "row_count_diff", map[string]any{"select": "tag:finance", "exclude": "daily_revenue"})
		if got := len(rc.Models); got != 1 || rc.Models["paid_orders"] == nil {
			t.Errorf("row_count_diff tag:finance minus daily_revenue: %v", rc.Models)
		}
	})
}

// A column the model does not have is an error naming the closest ones,
// in column_impact and in every data diff.
func TestUnknownColumnRefused(t *testing.T) {
	impacttest.OnEveryWarehouse(t, impacttest.Scenario, func(t *testing.T, tg impacttest.Target) {
		s := scenarioSession(t, tg)
		for _, c := range []struct {
			op   string
			args map[string]any
			want string
		}{
			{"column_impact", map[string]any{"node_id": "stg_payments", "columns": []string{"amount", "amout"}},
				`columns: "amout" is not a column of stg_payments; did you mean "amount"? Its columns are payment_id, order_id, amount`},
			{"value_diff", map[string]any{"model": "stg_payments", "primary_key": "payment_id", "columns": []string{"amout"}},
				`column "amout" does not exist in stg_payments in the base environment; did you mean "amount"? Its columns are payment_id, order_id, amount`},
			{"value_diff", map[string]any{"model": "stg_payments", "primary_key": "paymentid"},
				`primary key: column "paymentid" does not exist in stg_payments in the base environment; did you mean "payment_id"? Its columns are payment_id, order_id, amount`},
			{"value_diff_detail", map[string]any{"model": "stg_payments", "primary_key": "payment_id", "columns": []string{"ordr_id"}},
				`column "ordr_id" does not exist in stg_payments in the base environment; did you mean "order_id"? Its columns are payment_id, order_id, amount`},
			{"profile_diff", map[string]any{"model": "stg_payments", "columns": []string{"amout"}},
				`column "amout" is not in stg_payments in either environment; did you mean "amount"? Its columns are payment_id, order_id, amount`},
			{"top_k_diff", map[string]any{"model": "stg_payments", "column_name": "amout"},
				`column "amout" does not exist in stg_payments in the base environment; did you mean "amount"? Its columns are payment_id, order_id, amount`},
			{"histogram_diff", map[string]any{"model": "stg_payments", "column_name": "amout"},
				`column "amout" does not exist in stg_payments in the base environment; did you mean "amount"? Its columns are payment_id, order_id, amount`},
			{"query_diff", map[string]any{"sql_template": "select payment_id, amount from {{ ref('stg_payments') }}", "primary_keys": []string{"paymentid"}},
				`primary key "paymentid" is not a column of the query result; did you mean "payment_id"? Its columns are payment_id, amount`},
		} {
			_, err := callAnyErr(s, c.op, c.args)
			if err == nil || err.Error() != c.want {
				t.Errorf("%s %v:\n got %v\nwant %s", c.op, c.args, err, c.want)
			}
		}
		// Known columns still work, and a model's full column list is the default.
		ci := callOp[ColumnImpactResult](t, s, "column_impact", map[string]any{"node_id": "stg_payments", "columns": []string{"AMOUNT"}})
		if len(ci.Changed) != 1 || ci.Changed[0].Column != "AMOUNT" {
			t.Errorf("column_impact AMOUNT: %+v", ci.Changed)
		}
	})
}

// Base and current being one table is an error for every data diff of
// that model (never "no change" from one table read twice), and a
// prominent warning with a potential verdict in summary.
func TestSameRelationRefusedByDiffs(t *testing.T) {
	impacttest.OnEveryWarehouse(t, impacttest.Scenario, func(t *testing.T, tg impacttest.Target) {
		pointBaseAtCurrent(t, tg.Built, "small_payments")
		s := scenarioSession(t, tg)
		for _, c := range []struct {
			op   string
			args map[string]any
		}{
			{"value_diff", map[string]any{"model": "small_payments", "primary_key": "id"}},
			{"value_diff_detail", map[string]any{"model": "small_payments", "primary_key": "id"}},
			{"profile_diff", map[string]any{"model": "small_payments"}},
			{"top_k_diff", map[string]any{"model": "small_payments", "column_name": "amount"}},
			{"histogram_diff", map[string]any{"model": "small_payments", "column_name": "amount"}},
			{"row_count_diff", map[string]any{"node_names": []string{"daily_revenue", "small_payments"}}},
			{"row_count_diff", map[string]any{"select": "small_payments+"}},
			{"query_diff", map[string]any{"sql_template": "select count(*) from {{ ref('small_payments') }}"}},
		} {
			_, err := callAnyErr(s, c.op, c.args)
			if !errors.Is(err, diff.ErrSameRelation) || !strings.HasSuffix(err.Error(), "so comparing it cannot show a change; "+diff.RebuildBaseHint) {
				t.Errorf("%s %v: %v", c.op, c.args, err)
				continue
			}
			if c.op != "query_diff" && !strings.HasPrefix(err.Error(), "base and current are the same table: small_payments resolves to ") {
				t.Errorf("%s: %v", c.op, err)
			}
		}
		// Other models still compare.
		rc := callOp[diff.RowCountDiffResult](t, s, "row_count_diff", map[string]any{"node_names": []string{"daily_revenue"}})
		if got := rc.Models["daily_revenue"]; got == nil || *got.Base != 3 || *got.Current != 3 {
			t.Errorf("daily_revenue counts %+v", got)
		}
		md := callOp[SummaryResult](t, s, "summary", map[string]any{"select": "small_payments daily_revenue"}).Markdown
		if !strings.Contains(md, "> ⚠️ **Base and current are the same table for 1 model(s) (small_payments): comparing them cannot show a change, so their data_impact is potential, not none.") {
			t.Errorf("summary does not open with the warning:\n%s", md)
		}
		var row string
		for _, l := range strings.Split(md, "\n") {
			if strings.HasPrefix(l, "| small_payments |") {
				row = l
			}
		}
		if !strings.Contains(row, "| potential |") {
			t.Errorf("summary row %q, want potential", row)
		}
	})
}
