package ops

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"

	"github.com/ripple-data/ripple/internal/golden"
)

// This file tests the checks operations (checks_ops.go), the recording of
// run-backed diffs, and the summary and render_lineage_mermaid operations
// on real fixtures.

// callOpCtx is callOp with a context (e.g. WithAgentTrigger).
func callOpCtx[Out any](t *testing.T, ctx context.Context, s *Session, name string, args map[string]any) *Out {
	t.Helper()
	op, ok := Default().Get(name)
	if !ok {
		t.Fatalf("no operation %s", name)
	}
	raw, _ := json.Marshal(args)
	out, err := op.CallJSON(ctx, s, raw)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.(*Out)
}

// useStateFile points the session's checks state at a fresh path (not
// created) before the store is first opened.
func useStateFile(t *testing.T, s *Session) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ripple_state.json")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store != nil {
		t.Fatal("the checks store is already open")
	}
	s.cfg.StatePath = path
	return path
}

func loadState(t *testing.T, path string) *checks.State {
	t.Helper()
	st, err := checks.NewStateFile(path).Load(context.Background())
	if err != nil {
		t.Fatalf("loading the state file: %v", err)
	}
	return st
}

// loadFlushed loads the state file after writing the session's pending run
// history: ad-hoc runs are written lazily (checks.Store.Save), not on every call.
func loadFlushed(t *testing.T, s *Session, path string) *checks.State {
	t.Helper()
	st, err := s.Checks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return loadState(t, path)
}

func listChecks(t *testing.T, s *Session) *checks.ListResult {
	t.Helper()
	return callOp[checks.ListResult](t, s, "list_checks", map[string]any{})
}

// checkOf is one listed check.
func checkOf(t *testing.T, s *Session, id string) checks.CheckInfo {
	t.Helper()
	return checkInfo(t, listChecks(t, s), id)
}

func checkInfo(t *testing.T, l *checks.ListResult, id string) checks.CheckInfo {
	t.Helper()
	for _, c := range l.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("check %s is not listed: %+v", id, l.Checks)
	return checks.CheckInfo{}
}

func boolp(b *bool) string {
	if b == nil {
		return "nil"
	}
	if *b {
		return "true"
	}
	return "false"
}

func TestCreateCheckIsIdempotent(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		path := useStateFile(t, e.session)
		first := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "value_diff", "params": map[string]any{"model": "orders", "primary_key": "id"}, "name": "Orders values", "run": false})
		if !first.Created || first.CheckID == "" || checkOf(t, e.session, first.CheckID).Name != "Orders values" || first.RunExecuted || first.RunID != "" {
			t.Fatalf("first create = %+v", first)
		}
		// Same type and params (keys in another order): same check, renamed.
		second := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "value_diff", "params": map[string]any{"primary_key": "id", "model": "orders"}, "name": "Orders by id", "description": "why", "run": false})
		if c := checkOf(t, e.session, first.CheckID); second.Created || second.CheckID != first.CheckID || c.Name != "Orders by id" || c.Description != "why" {
			t.Fatalf("second create = %+v, want check %s updated", second, first.CheckID)
		}
		// Other params: another check.
		other := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "row_count_diff", "params": map[string]any{"node_names": []string{"orders"}}, "name": "Orders rows", "run": false})
		if !other.Created || other.CheckID == first.CheckID {
			t.Fatalf("other create = %+v", other)
		}
		// A deprecated parameter name is stored under its canonical name, so
		// both spellings are the same check.
		q1 := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "query_diff", "params": map[string]any{"sql": "select 1 as x"}, "name": "Q", "run": false})
		q2 := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "query_diff", "params": map[string]any{"sql_template": "select 1 as x"}, "name": "Q2", "run": false})
		if p := checkOf(t, e.session, q1.CheckID).Params; q2.Created || q2.CheckID != q1.CheckID || string(p) != `{"sql_template":"select 1 as x"}` {
			t.Fatalf("query_diff with sql then sql_template: %+v / %+v (params %s)", q1, q2, p)
		}
		l := listChecks(t, e.session)
		if l.Total != 3 || l.Approved != 0 || l.Outdated != 0 {
			t.Errorf("list totals = %d/%d/%d, want 3/0/0", l.Total, l.Approved, l.Outdated)
		}
		if c := checkInfo(t, l, first.CheckID); c.LastRunStatus != "" || c.Mismatched != nil || c.IsChecked || c.IsOutdated {
			t.Errorf("never-run check listed as %+v", c)
		}
		// create_check writes the state file.
		st := loadState(t, path)
		if len(st.Checks) != 3 || st.Checks[0].ID != first.CheckID || st.Checks[0].Name != "Orders by id" || len(st.Runs) != 0 {
			t.Errorf("state file = %+v", st.Checks)
		}
		// Bad params are refused before anything is stored, by the
		// operation's own schema, naming the parameter.
		for _, c := range []struct {
			typ    string
			params map[string]any
			want   string
		}{
			{"value_diff", map[string]any{"model": "orders"}, `value_diff: param "primary_key" `},
			{"value_diff", map[string]any{"model": "orders", "primary_keys": []string{"id"}}, `value_diff: param "primary_keys" is not a parameter of value_diff; did you mean "primary_key"?`},
			{"top_k_diff", map[string]any{"model": "orders", "column_name": "amount", "k": "ten"}, `top_k_diff: param "k" `},
			{"lineage_diff", map[string]any{"view_mode": "some"}, `lineage_diff: param "view_mode" `},
			{"query_diff", map[string]any{}, `query_diff: param "sql_template" is required`},
			{"no_such_diff", map[string]any{}, `unknown check type "no_such_diff": use one of histogram_diff, lineage_diff, profile, profile_diff, query, query_diff, row_count, row_count_diff, schema_diff, top_k_diff, value_diff, value_diff_detail`},
			{"get_model", map[string]any{"model_id": "orders"}, `unknown check type "get_model"`},
		} {
			_, err := callOpErr[CreateCheckResult](e.session, "create_check", map[string]any{"type": c.typ, "params": c.params, "name": "x"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("create %s %v: %v, want containing %q", c.typ, c.params, err, c.want)
			}
		}
		if _, err := callOpErr[CreateCheckResult](e.session, "create_check", map[string]any{"type": "row_count_diff", "params": map[string]any{}}); err == nil ||
			!strings.Contains(err.Error(), `missing properties: ["name"]`) {
			t.Errorf("create without a name: %v", err)
		}
		if n := len(loadState(t, path).Checks); n != 3 {
			t.Errorf("%d checks stored after refused creates, want 3", n)
		}
	})
}

// TestCreateCheckRunsAndApproves: create_check runs the check at once and
// approves it when the run succeeds, whoever triggers it (the peer's rule);
// a failed run leaves it unapproved with the error.
func TestCreateCheckRunsAndApproves(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		path := useStateFile(t, e.session)
		agent := WithAgentTrigger(context.Background())

		bad := callOpCtx[CreateCheckResult](t, agent, e.session, "create_check", map[string]any{
			"type": "value_diff", "params": map[string]any{"model": "orders", "primary_key": "no_such_column"}, "name": "Broken"})
		if !bad.Created || bad.RunExecuted || !strings.Contains(bad.RunError, `column "no_such_column" does not exist in orders`) || bad.RunID == "" || checkOf(t, e.session, bad.CheckID).IsChecked {
			t.Fatalf("failing create = %+v", bad)
		}
		good := callOpCtx[CreateCheckResult](t, agent, e.session, "create_check", map[string]any{
			"type": "value_diff", "params": map[string]any{"model": "orders", "primary_key": "id"}, "name": "Orders values"})
		if c := checkOf(t, e.session, good.CheckID); !good.Created || !good.RunExecuted || good.RunError != "" || !c.IsChecked || c.LastRunID != good.RunID {
			t.Fatalf("succeeding create = %+v", good)
		}
		// A user's successful run approves too, and triggered_by is recorded as given.
		user := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "value_diff", "params": map[string]any{"model": "customers", "primary_key": "id"}, "name": "Customers"})
		viaAI := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "row_count_diff", "params": map[string]any{"node_names": []string{"payments"}}, "name": "Payments", "triggered_by": "recce_ai"})
		if !user.RunExecuted || !checkOf(t, e.session, user.CheckID).IsChecked || !checkOf(t, e.session, viaAI.CheckID).IsChecked {
			t.Errorf("user creates = %+v / %+v", user, viaAI)
		}
		st := loadState(t, path)
		if len(st.Runs) != 4 {
			t.Fatalf("state file has %d runs, want 4", len(st.Runs))
		}
		by := map[string]checks.Run{}
		for _, r := range st.Runs {
			by[r.CheckID] = r
		}
		if by[bad.CheckID].Status != checks.StatusFailed || by[bad.CheckID].TriggeredBy != checks.TriggerAgent ||
			by[good.CheckID].TriggeredBy != checks.TriggerAgent || by[user.CheckID].TriggeredBy != checks.TriggerUser || by[viaAI.CheckID].TriggeredBy != checks.TriggerAgent {
			t.Errorf("recorded runs = %+v", st.Runs)
		}
		var vd diff.ValueDiffResult
		if err := json.Unmarshal(by[good.CheckID].Result, &vd); err != nil || vd.Summary != (diff.ValueDiffSummary{Total: 3, Added: 1, Changed: 1}) {
			t.Errorf("stored value_diff result = %+v (%v)", vd.Summary, err)
		}
		l := listChecks(t, e.session)
		if l.Total != 4 || l.Approved != 3 {
			t.Errorf("totals = %d checks, %d approved; want 4, 3", l.Total, l.Approved)
		}
		if c := checkInfo(t, l, bad.CheckID); c.LastRunStatus != checks.StatusFailed || c.LastRunError == "" || c.Mismatched != nil {
			t.Errorf("failed check listed as status=%s error=%q mismatched=%s", c.LastRunStatus, c.LastRunError, boolp(c.Mismatched))
		}
		if c := checkInfo(t, l, good.CheckID); c.LastRunStatus != checks.StatusFinished || c.Mismatched == nil || !*c.Mismatched {
			t.Errorf("orders value diff listed as status=%s mismatched=%s, want Finished/true", c.LastRunStatus, boolp(c.Mismatched))
		}
		// The same check again: not created, run again, still approved.
		again := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "value_diff", "params": map[string]any{"model": "orders", "primary_key": "id"}, "name": "Orders values (again)"})
		if again.Created || again.CheckID != good.CheckID || !again.RunExecuted || again.RunID == good.RunID || checkOf(t, e.session, good.CheckID).Name != "Orders values (again)" {
			t.Errorf("second create = %+v", again)
		}
	})
}

func TestRunCheckReturnsTheRun(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		path := useStateFile(t, e.session)
		rc := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "row_count_diff", "params": map[string]any{"node_names": []string{"customers"}}, "name": "Customers rows", "run": false})
		same := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "row_count_diff", "params": map[string]any{"node_names": []string{"unrelated"}}, "name": "Unrelated rows", "run": false})

		run := callOp[checks.Run](t, e.session, "run_check", map[string]any{"check_id": rc.CheckID, "triggered_by": "recce_ai"})
		if run.ID == "" || run.Status != checks.StatusFinished || run.CheckID != rc.CheckID || run.Type != "row_count_diff" || run.TriggeredBy != checks.TriggerAgent || run.FinishedAt == nil {
			t.Fatalf("run = %+v", run)
		}
		var counts diff.RowCountDiffResult
		if err := json.Unmarshal(run.Result, &counts); err != nil {
			t.Fatal(err)
		}
		if c := counts.Models["customers"]; c == nil || c.Base == nil || c.Current == nil || *c.Base != 2 || *c.Current != 3 {
			t.Errorf("stored result = %s", run.Result)
		}
		// The Run dump is the peer's.
		raw, _ := json.Marshal(run)
		var dump map[string]any
		_ = json.Unmarshal(raw, &dump)
		for _, k := range []string{"run_id", "type", "name", "params", "check_id", "result", "error", "status", "progress", "run_at", "triggered_by"} {
			if _, ok := dump[k]; !ok {
				t.Errorf("the run dump lacks %s: %s", k, raw)
			}
		}
		if dump["name"] != "Row count diff of customers" || dump["error"] != nil || dump["status"] != "Finished" || dump["triggered_by"] != "recce_ai" {
			t.Errorf("run dump = %s", raw)
		}
		callOp[checks.Run](t, e.session, "run_check", map[string]any{"check_id": same.CheckID})

		l := listChecks(t, e.session)
		c := checkInfo(t, l, rc.CheckID)
		if c.LastRunID != run.ID || c.LastRunStatus != checks.StatusFinished || !c.IsChecked {
			t.Errorf("listed = %+v", c)
		}
		// customers has 2 rows in base and 3 in current: the CI verdict is a mismatch.
		if c.Mismatched == nil || !*c.Mismatched {
			t.Errorf("row_count_diff customers 2 → 3: mismatched = %s, want true", boolp(c.Mismatched))
		}
		if u := checkInfo(t, l, same.CheckID); u.Mismatched == nil || *u.Mismatched {
			t.Errorf("row_count_diff unrelated 1 → 1: mismatched = %s, want false", boolp(u.Mismatched))
		}
		st := loadState(t, path)
		if len(st.Runs) != 2 || st.Runs[0].ID != run.ID || st.Checks[0].LastRunID != run.ID {
			t.Errorf("state file runs = %+v", st.Runs)
		}
		if _, err := callOpErr[checks.Run](e.session, "run_check", map[string]any{"check_id": "nope"}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("run_check of an unknown id: %v", err)
		}
		// A failed run is returned as a Failed run and does not approve.
		broken := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "value_diff", "params": map[string]any{"model": "order_ids", "primary_key": "nope"}, "name": "Broken", "run": false})
		if r := callOp[checks.Run](t, e.session, "run_check", map[string]any{"check_id": broken.CheckID}); r.Status != checks.StatusFailed || r.Error == "" {
			t.Errorf("broken run = %+v", r)
		}
		if checkInfo(t, listChecks(t, e.session), broken.CheckID).IsChecked {
			t.Error("a failed run approved its check")
		}
	})
}

// TestSchemaDiffCheckVerdict: a schema_diff that finds no change is not a mismatch.
func TestSchemaDiffCheckVerdict(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		useStateFile(t, e.session)
		changed := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "schema_diff", "params": map[string]any{"select": "v_customers"}, "name": "V"})
		unchanged := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "schema_diff", "params": map[string]any{"select": "orders"}, "name": "O"})
		l := listChecks(t, e.session)
		if c := checkInfo(t, l, changed.CheckID); c.Mismatched == nil || !*c.Mismatched {
			t.Errorf("schema_diff of v_customers (age added): mismatched = %s, want true", boolp(c.Mismatched))
		}
		if c := checkInfo(t, l, unchanged.CheckID); c.Mismatched == nil || *c.Mismatched {
			t.Errorf("schema_diff of orders (no column change): mismatched = %s, want false", boolp(c.Mismatched))
		}
	})
}

func TestChecksBecomeOutdated(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		useStateFile(t, e.session)
		never := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "row_count_diff", "params": map[string]any{"node_names": []string{"orders"}}, "name": "Orders", "run": false})
		ran := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "row_count_diff", "params": map[string]any{"node_names": []string{"customers"}}, "name": "Customers"})
		if l := listChecks(t, e.session); l.Outdated != 0 {
			t.Fatalf("fresh run outdated: %+v", l)
		}
		// Touch the current manifest, as a new `dbt build` would.
		manifest := filepath.Join(e.built.Dir, "target", dbt.ManifestFile)
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(manifest, later, later); err != nil {
			t.Fatal(err)
		}
		l := listChecks(t, e.session)
		if l.Outdated != 1 || !checkInfo(t, l, ran.CheckID).IsOutdated {
			t.Errorf("after touching the manifest: outdated = %d, check %+v", l.Outdated, checkInfo(t, l, ran.CheckID))
		}
		if checkInfo(t, l, never.CheckID).IsOutdated {
			t.Error("a check that never ran is not outdated")
		}
		// Running it again makes it current.
		callOp[checks.Run](t, e.session, "run_check", map[string]any{"check_id": ran.CheckID})
		// The manifest is dated an hour ahead; the run started now, so it is
		// still older. Bring the manifest back to the past.
		earlier := time.Now().Add(-time.Hour)
		if err := os.Chtimes(manifest, earlier, earlier); err != nil {
			t.Fatal(err)
		}
		if l := listChecks(t, e.session); l.Outdated != 0 {
			t.Errorf("after re-running: outdated = %d", l.Outdated)
		}
	})
}

func TestApproveDeleteReorder(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		path := useStateFile(t, e.session)
		var ids []string
		for _, m := range []string{"orders", "customers", "payments"} {
			r := callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
				"type": "row_count_diff", "params": map[string]any{"node_names": []string{m}}, "name": m, "run": false})
			ids = append(ids, r.CheckID)
		}
		order := func() []string {
			var out []string
			for _, c := range listChecks(t, e.session).Checks {
				out = append(out, c.ID)
			}
			return out
		}
		stored := func() []string {
			var out []string
			for _, c := range loadState(t, path).Checks {
				out = append(out, c.ID)
			}
			return out
		}

		a := callOp[CheckResult](t, e.session, "approve_check", map[string]any{"check_id": ids[1]})
		if !a.Check.IsChecked || a.Check.ID != ids[1] {
			t.Errorf("approve = %+v", a.Check)
		}
		if l := listChecks(t, e.session); l.Approved != 1 || !checkInfo(t, l, ids[1]).IsChecked {
			t.Errorf("approved count = %d", l.Approved)
		}
		if !loadState(t, path).Checks[1].IsChecked {
			t.Error("approval not written to the state file")
		}
		u := callOp[CheckResult](t, e.session, "approve_check", map[string]any{"check_id": ids[1], "approved": false})
		if u.Check.IsChecked || listChecks(t, e.session).Approved != 0 || loadState(t, path).Checks[1].IsChecked {
			t.Errorf("unapprove = %+v", u.Check)
		}
		explicit := callOp[CheckResult](t, e.session, "approve_check", map[string]any{"check_id": ids[0], "approved": true})
		if !explicit.Check.IsChecked {
			t.Error("approved=true must approve")
		}

		r := callOp[CheckResult](t, e.session, "reorder_check", map[string]any{"check_id": ids[2], "index": 0})
		if r.Check.ID != ids[2] {
			t.Errorf("reorder returned %+v", r.Check)
		}
		want := []string{ids[2], ids[0], ids[1]}
		if got := order(); !reflect.DeepEqual(got, want) {
			t.Errorf("order after reorder = %v, want %v", got, want)
		}
		if got := stored(); !reflect.DeepEqual(got, want) {
			t.Errorf("stored order = %v, want %v", got, want)
		}
		callOp[CheckResult](t, e.session, "reorder_check", map[string]any{"check_id": ids[2], "index": 2})
		if got, want := order(), []string{ids[0], ids[1], ids[2]}; !reflect.DeepEqual(got, want) {
			t.Errorf("order after moving to the end = %v, want %v", got, want)
		}
		for _, idx := range []int{3, -1} {
			if _, err := callOpErr[CheckResult](e.session, "reorder_check", map[string]any{"check_id": ids[0], "index": idx}); err == nil || !strings.Contains(err.Error(), "out of range") {
				t.Errorf("reorder to %d: %v", idx, err)
			}
		}

		// A run, then delete: the check goes, its run stays in the history.
		run := callOp[checks.Run](t, e.session, "run_check", map[string]any{"check_id": ids[1]})
		d := callOp[DeleteResult](t, e.session, "delete_check", map[string]any{"check_id": ids[1]})
		if !d.Deleted || d.CheckID != ids[1] {
			t.Errorf("delete = %+v", d)
		}
		if got, want := order(), []string{ids[0], ids[2]}; !reflect.DeepEqual(got, want) {
			t.Errorf("order after delete = %v, want %v", got, want)
		}
		st := loadState(t, path)
		if len(st.Checks) != 2 || len(st.Runs) != 1 || st.Runs[0].ID != run.ID {
			t.Errorf("state after delete: %d checks, runs %+v", len(st.Checks), st.Runs)
		}
		for _, op := range []string{"delete_check", "approve_check", "run_check"} {
			if _, err := callRaw(e.session, op, map[string]any{"check_id": ids[1]}); err == nil || !errors.Is(err, checks.ErrNotFound) {
				t.Errorf("%s of a deleted check: %v", op, err)
			}
		}
	})
}

// runIDOf returns the RunID field of a result and whether the type has one.
func runIDOf(out any) (string, bool) {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return "", false
	}
	f := v.Elem().FieldByName("RunID")
	if !f.IsValid() || f.Kind() != reflect.String {
		return "", false
	}
	return f.String(), true
}

func mustWarehouse(t *testing.T, s *Session) warehouse.Conn {
	t.Helper()
	c, err := s.Warehouse(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// callRaw runs an operation and returns its result untyped.
func callRaw(s *Session, name string, args map[string]any) (any, error) {
	op, ok := Default().Get(name)
	if !ok {
		return nil, errors.New("no operation " + name)
	}
	raw, _ := json.Marshal(args)
	return op.CallJSON(context.Background(), s, raw)
}

func callAny(t *testing.T, s *Session, name string, args map[string]any) any {
	t.Helper()
	op, _ := Default().Get(name)
	raw, _ := json.Marshal(args)
	out, err := op.CallJSON(context.Background(), s, raw)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

func TestRunBackedDiffsAreRecorded(t *testing.T) {
	calls := []struct {
		op   string
		args map[string]any
	}{
		{"row_count_diff", map[string]any{"node_names": []string{"orders"}}},
		{"value_diff", map[string]any{"model": "orders", "primary_key": "id"}},
		{"query", map[string]any{"sql_template": "select count(*) as n from {{ ref('orders') }}"}},
		{"query_diff", map[string]any{"sql_template": "select id, amount from {{ ref('orders') }}", "primary_keys": []string{"id"}}},
		{"profile_diff", map[string]any{"model": "orders"}},
	}
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		path := useStateFile(t, e.session)
		// No state file (a one-off CLI diff): the diffs run and leave no
		// file behind. A separate session, as a separate CLI process would be.
		oneOff := NewSession(e.session.Config())
		oneOff.conn = mustWarehouse(t, e.session)
		for _, c := range calls {
			callAny(t, oneOff, c.op, c.args)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a one-off diff wrote the state file %s (%v)", path, err)
		}

		// Once a review has a state file, every run-backed diff is recorded there.
		if err := checks.NewStateFile(path).Save(context.Background(), checks.NewState(), checks.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		before := len(loadState(t, path).Runs)
		for i, c := range calls {
			out := callAny(t, e.session, c.op, c.args)
			st := loadFlushed(t, e.session, path)
			if len(st.Runs) != before+i+1 {
				t.Errorf("%s: state file has %d runs, want %d", c.op, len(st.Runs), before+i+1)
				continue
			}
			run := st.Runs[len(st.Runs)-1]
			if run.Type != c.op || run.Status != checks.StatusFinished || run.CheckID != "" || run.TriggeredBy != checks.TriggerUser || len(run.Result) == 0 {
				t.Errorf("%s: recorded run = %s %s check=%q by=%s (params %s)", c.op, run.Type, run.Status, run.CheckID, run.TriggeredBy, run.Params)
			}
			var params map[string]any
			_ = json.Unmarshal(run.Params, &params)
			for k := range c.args {
				if _, ok := params[k]; !ok {
					t.Errorf("%s: recorded params %s lack %s", c.op, run.Params, k)
				}
			}
			if id, ok := runIDOf(out); !ok || id != run.ID {
				t.Errorf("%s: result run_id = %q (%v), recorded run %q", c.op, id, ok, run.ID)
			}
			raw, _ := json.Marshal(out)
			if !strings.Contains(string(raw), `"run_id":"`+run.ID+`"`) {
				t.Errorf("%s: JSON result lacks run_id: %.300s", c.op, raw)
			}
		}

		// An agent's ad-hoc diff is recorded as triggered by the agent.
		op, _ := Default().Get("row_count_diff")
		raw, _ := json.Marshal(map[string]any{"node_names": []string{"customers"}})
		if _, err := op.CallJSON(WithAgentTrigger(context.Background()), e.session, raw); err != nil {
			t.Fatal(err)
		}
		st := loadFlushed(t, e.session, path)
		if last := st.Runs[len(st.Runs)-1]; last.TriggeredBy != checks.TriggerAgent {
			t.Errorf("agent diff recorded as %s", last.TriggeredBy)
		}
		// A failing diff is recorded as failed and still returns the error.
		if _, err := callRaw(e.session, "value_diff", map[string]any{"model": "orders", "primary_key": "no_such_column"}); err == nil {
			t.Error("value_diff on a missing key column must fail")
		}
		st = loadFlushed(t, e.session, path)
		if last := st.Runs[len(st.Runs)-1]; last.Type != "value_diff" || last.Status != checks.StatusFailed || last.Error == "" {
			t.Errorf("the failed value_diff is not the last run in the state file (last: %s %s %q)", last.Type, last.Status, last.Error)
		}
	})
}

// TestRecordedDiffKeepsErrorTypes: recording a run must not change the
// error a caller gets (the CLI maps error types to exit codes, agents read
// them).
func TestRecordedDiffKeepsErrorTypes(t *testing.T) {
	p := dbtfixture.New(t)
	triageScenario(p)
	b := p.MustBuild(context.Background())
	s := NewSession(Config{Paths: b.Paths}) // no warehouse configured
	useStateFile(t, s)
	_, err := callRaw(s, "row_count_diff", map[string]any{"node_names": []string{"orders"}})
	if err == nil || !errors.Is(err, ErrNoWarehouse) {
		t.Errorf("row_count_diff without a warehouse: %v (%T), want an error wrapping ErrNoWarehouse", err, err)
	}
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		useStateFile(t, e.session)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		op, _ := Default().Get("value_diff")
		raw, _ := json.Marshal(map[string]any{"model": "orders", "primary_key": "id"})
		if _, err := op.CallJSON(ctx, e.session, raw); err == nil || !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled value_diff: %v (%T), want an error wrapping context.Canceled", err, err)
		}
	})
}

// TestEveryCheckTypeRuns: every operation create_check accepts runs
// through the registry with params validated by its own input schema.
func TestEveryCheckTypeRuns(t *testing.T) {
	params := map[string]map[string]any{
		"row_count_diff":    {"node_names": []string{"orders"}},
		"row_count":         {"node_names": []string{"orders"}},
		"profile":           {"model": "orders"},
		"schema_diff":       {"select": "orders"},
		"lineage_diff":      {"select": "orders"},
		"query":             {"sql_template": "select 1 as x"},
		"query_diff":        {"sql_template": "select id, amount from {{ ref('orders') }}", "primary_keys": []string{"id"}},
		"profile_diff":      {"model": "orders"},
		"value_diff":        {"model": "orders", "primary_key": "id"},
		"value_diff_detail": {"model": "orders", "primary_key": "id"},
		"top_k_diff":        {"model": "orders", "column_name": "amount"},
		"histogram_diff":    {"model": "orders", "column_name": "amount"},
	}
	if got := Default().CheckTypes(); len(got) != len(params) {
		t.Fatalf("check types = %v: give each a case here", got)
	}
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		useStateFile(t, e.session)
		for _, typ := range Default().CheckTypes() {
			r, err := callOpErr[CreateCheckResult](e.session, "create_check", map[string]any{"type": typ, "params": params[typ], "name": typ})
			if err != nil {
				t.Errorf("%s: create: %v", typ, err)
				continue
			}
			if !r.RunExecuted || !checkOf(t, e.session, r.CheckID).IsChecked {
				t.Errorf("%s: advertised check type cannot run: %s", typ, r.RunError)
			}
		}
	})
}

func TestSummaryOperation(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		useStateFile(t, e.session)
		// No state file: no checks section entries.
		out := callOp[SummaryResult](t, e.session, "summary", map[string]any{"use_column_lineage": false})
		if !strings.Contains(out.Markdown, "## Checks\n\nNo checks yet.\n") {
			t.Errorf("summary without a state file:\n%s", out.Markdown)
		}
		callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "value_diff", "params": map[string]any{"model": "orders", "primary_key": "id"}, "name": "Orders values"})
		callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "value_diff", "params": map[string]any{"model": "unrelated", "primary_key": "nope"}, "name": "Broken"})
		callOp[CreateCheckResult](t, e.session, "create_check", map[string]any{
			"type": "row_count_diff", "params": map[string]any{"node_names": []string{"orders"}}, "name": "Orders rows", "run": false})
		md := callOp[SummaryResult](t, e.session, "summary", map[string]any{"use_column_lineage": false}).Markdown
		for _, want := range []string{
			"| customers | modified | 2 → 3 (▲ 50%) | unchanged | confirmed | 1 |\n",
			"| orders | modified | 2 → 3 (▲ 50%) | unchanged | confirmed | 2 |\n",
			"| payments | modified | 2 → 2 | unchanged | confirmed | 2 |\n",
			"| v_customers | modified | 1 → 1 | added `age` | none | 0 |\n",
			"| customer_ids_view | downstream | 2 → 3 (▲ 50%) | unchanged | confirmed | 1 |\n",
			"| order_ids | downstream | 2 → 2 | unchanged | none | 0 |\n",
			"| check | type | result | approved |\n|---|---|---|---|\n" +
				"| Broken | value_diff | ❌ failed |  |\n" +
				"| Orders values | value_diff | ⚠️ mismatch | ✓ |\n" +
				"| Orders rows | row_count_diff | never run |  |\n",
			`["customers<br/><small>Code · Row count ▲ 50%</small>"]`,
			`["v_customers<br/><small>Code · Schema</small>"]`,
		} {
			if !strings.Contains(md, want) {
				t.Errorf("summary lacks %q:\n%s", want, md)
			}
		}
		if strings.HasSuffix(t.Name(), "/duckdb") {
			goldenFile(t, "summary_triage.md", normaliseTimestamps(md))
		}
	})
}

// TestSummaryUnmeasurable: a model whose table is gone says why, never 0.
func TestSummaryUnmeasurable(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		e.drop(dbtfixture.Current, "payments")
		md := callOp[SummaryResult](t, e.session, "summary", map[string]any{"use_column_lineage": false}).Markdown
		if !strings.Contains(md, "| payments | modified | 2 → N/A (table_not_found) | ") {
			t.Errorf("payments row:\n%s", md)
		}
		if !strings.Contains(md, `["payments<br/><small>Code · Row count N/A (table_not_found)</small>"]`) {
			t.Errorf("payments graph note:\n%s", md)
		}
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "| payments |") && (strings.Contains(line, "→ 0") || strings.Contains(line, "| 0 |")) {
				t.Errorf("payments shows a 0: %s", line)
			}
		}
		// The failed steps open the comment, before the lineage, not in a
		// collapsed block.
		top, _, _ := strings.Cut(md, "## Lineage")
		if !strings.Contains(top, "data step(s) failed") || !regexp.MustCompile(`(?m)^> - \S+ payments: `).MatchString(top) || strings.Contains(md, "<details>") {
			t.Errorf("the failed steps must open the summary:\n%s", md)
		}
	})
}

func TestRenderLineageMermaidOperation(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		a := callOp[impact.MermaidResult](t, e.session, "render_lineage_mermaid", map[string]any{})
		b := callOp[impact.MermaidResult](t, e.session, "render_lineage_mermaid", map[string]any{})
		if a.Mermaid != b.Mermaid {
			t.Fatalf("two calls differ:\n%s\n---\n%s", a.Mermaid, b.Mermaid)
		}
		// state:modified+: the 4 modified models, their 2 children; not unrelated.
		if a.NodeCount != 6 || a.Truncated || a.EdgeCount != 2 {
			t.Errorf("nodes=%d edges=%d truncated=%v\n%s", a.NodeCount, a.EdgeCount, a.Truncated, a.Mermaid)
		}
		for _, want := range []string{
			"  n0[\"customers<br/><small>Code</small>\"]\n",
			"  n1[\"orders<br/><small>Code</small>\"]\n",
			"  n2[\"payments<br/><small>Code</small>\"]\n",
			"  n3[\"v_customers<br/><small>Code · Schema</small>\"]\n",
			"  class n4 impacted\n",
			"  class n5 impacted\n",
		} {
			if !strings.Contains(a.Mermaid, want) {
				t.Errorf("diagram lacks %q:\n%s", want, a.Mermaid)
			}
		}
		if strings.Contains(a.Mermaid, "unrelated") {
			t.Errorf("unrelated is not impacted:\n%s", a.Mermaid)
		}
		if strings.HasSuffix(t.Name(), "/duckdb") {
			goldenFile(t, "mermaid_triage.mmd", a.Mermaid)
		}
		sel := callOp[impact.MermaidResult](t, e.session, "render_lineage_mermaid", map[string]any{"select": "orders+"})
		if sel.NodeCount != 2 || !strings.Contains(sel.Mermaid, `"order_ids"`) || strings.Contains(sel.Mermaid, `"customers`) {
			t.Errorf("select orders+:\n%s", sel.Mermaid)
		}
		small := callOp[impact.MermaidResult](t, e.session, "render_lineage_mermaid", map[string]any{"max_chars": 600})
		if !small.Truncated || small.OmittedNodes == 0 || len(small.Mermaid) > 600 || !strings.Contains(small.Mermaid, "%% truncated: ") {
			t.Errorf("max_chars 600: truncated=%v omitted=%d len=%d\n%s", small.Truncated, small.OmittedNodes, len(small.Mermaid), small.Mermaid)
		}
	})
}

var timestampRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?`)

func normaliseTimestamps(s string) string { return timestampRE.ReplaceAllString(s, "<TIMESTAMP>") }

func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name), []byte(got))
}

// TestDefaultStatePath: with no StatePath the store opens
// ripple_state.json; saving and the summary must use the same file.
func TestDefaultStatePath(t *testing.T) {
	p := dbtfixture.New(t)
	triageScenario(p)
	b := p.MustBuild(context.Background())
	t.Chdir(t.TempDir())
	if err := checks.NewStateFile("ripple_state.json").Save(context.Background(), checks.NewState(), checks.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	s := NewSession(Config{Paths: b.Paths, OpenWarehouse: duckdbOpener(b)})
	t.Cleanup(func() { s.Close() })
	callAny(t, s, "row_count_diff", map[string]any{"node_names": []string{"orders"}})
	if st := loadState(t, "ripple_state.json"); len(st.Runs) != 1 {
		t.Errorf("the default state file has %d runs after a recorded diff, want 1", len(st.Runs))
	}
	callOp[CreateCheckResult](t, s, "create_check", map[string]any{"type": "row_count_diff", "params": map[string]any{"node_names": []string{"orders"}}, "name": "Orders rows", "run": false})
	md := callOp[SummaryResult](t, s, "summary", map[string]any{"use_column_lineage": false}).Markdown
	if !strings.Contains(md, "| Orders rows | row_count_diff | never run |  |") {
		t.Errorf("the summary must list the checks of the default state file:\n%s", md)
	}
}

func duckdbOpener(b *dbtfixture.Built) func(context.Context, *dbt.Project) (warehouse.Conn, error) {
	return func(ctx context.Context, _ *dbt.Project) (warehouse.Conn, error) {
		return duckdb.Open(ctx, duckdb.Options{Path: b.DBPath, ReadOnly: true, Catalog: b.Database})
	}
}

// TestSummaryTakesImpactParameters: the summary's select narrows the triage.
func TestSummaryTakesImpactParameters(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		md := callOp[SummaryResult](t, e.session, "summary", map[string]any{"select": "orders", "use_column_lineage": false}).Markdown
		if !strings.Contains(md, "| orders | modified | 2 → 3 (▲ 50%) |") || strings.Contains(md, "| customers |") || strings.Contains(md, "| payments |") {
			t.Errorf("summary of select=orders:\n%s", md)
		}
		if !strings.Contains(md, "1 impacted (1 modified, 0 added, 0 removed, 0 downstream)") {
			t.Errorf("counts of select=orders:\n%s", md)
		}
	})
}

// TestConcurrentRecordedDiffs: an MCP server serves calls concurrently from
// one session; every run lands in the state file with its own result.
func TestConcurrentRecordedDiffs(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		path := useStateFile(t, e.session)
		if err := checks.NewStateFile(path).Save(context.Background(), checks.NewState(), checks.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		models := []string{"customers", "orders", "payments", "unrelated", "order_ids", "customers", "orders", "payments"}
		errs := make(chan error, len(models))
		for _, m := range models {
			go func() {
				_, err := callRaw(e.session, "row_count_diff", map[string]any{"node_names": []string{m}})
				errs <- err
			}()
		}
		for range models {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		st := loadFlushed(t, e.session, path)
		if len(st.Runs) != len(models) {
			t.Fatalf("%d runs in the state file, want %d", len(st.Runs), len(models))
		}
		for _, r := range st.Runs {
			var p struct {
				NodeNames []string `json:"node_names"`
			}
			var res diff.RowCountDiffResult
			if json.Unmarshal(r.Params, &p) != nil || json.Unmarshal(r.Result, &res) != nil || len(p.NodeNames) != 1 || len(res.Models) != 1 || res.Models[p.NodeNames[0]] == nil {
				t.Errorf("run %s: params %s do not match result %.200s", r.ID, r.Params, r.Result)
			}
		}
	})
}
