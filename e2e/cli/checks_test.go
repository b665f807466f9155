package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ripple-data/ripple/internal/demo"
)

// The checks operations (create/run/approve/reorder/delete/list-checks) and
// run-backed diffs, on a state file of their own.

type stateRunner struct {
	t     *testing.T
	state string
}

func (s stateRunner) json(args ...string) map[string]any {
	s.t.Helper()
	r := execRipple(s.t, append([]string{"--project-dir", suite.demoDir, "--duckdb", suite.dbPath, "--state-file", s.state}, append(args, "--json")...)...)
	if r.code != 0 {
		s.t.Fatalf("exit %d:\n%s", r.code, r)
	}
	return decodeOnly(s.t, r).(map[string]any)
}

func (s stateRunner) runs() []any {
	s.t.Helper()
	data, err := os.ReadFile(s.state)
	if err != nil {
		s.t.Fatal(err)
	}
	var st map[string]any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&st); err != nil {
		s.t.Fatalf("state file is not JSON: %v", err)
	}
	runs, _ := st["runs"].([]any)
	return runs
}

func TestChecks(t *testing.T) {
	t.Parallel()
	needSuite(t)
	s := stateRunner{t: t, state: filepath.Join(t.TempDir(), "state.json")}

	list := s.json("list-checks")
	if integer(t, list, "total") != 0 {
		t.Fatalf("fresh list %v", list)
	}
	// One-off diffs leave no file behind.
	s.json("value-diff", "--model", "orders", "--primary-key", "order_id")
	if _, err := os.Stat(s.state); !os.IsNotExist(err) {
		t.Errorf("a one-off value-diff created the state file (err %v)", err)
	}

	// create-check runs the check and approves it when the run succeeds.
	vd := s.json("create-check", "--type", "value_diff", "--params", `{"model":"orders","primary_key":"order_id"}`, "--name", "Orders values")
	if get(t, vd, "created") != true || get(t, vd, "run_executed") != true || str(t, vd, "run_id") == "" {
		t.Fatalf("create-check: %v", vd)
	}
	runs := s.runs()
	if last := runs[len(runs)-1]; str(t, last, "status") != "Finished" || integer(t, last, "result", "summary", "changed") != demo.OrdersChanged {
		t.Errorf("check run: %v, want Finished with %d changed", last, demo.OrdersChanged)
	}
	vdID := str(t, vd, "check_id")
	again := s.json("create-check", "--type", "value_diff", "--params", `{"model":"orders","primary_key":"order_id"}`, "--name", "Orders by id", "--run=false")
	if get(t, again, "created") != false || str(t, again, "check_id") != vdID || get(t, again, "run_executed") != false {
		t.Errorf("second create: %v; want created false, %s, not run", again, vdID)
	}
	if c := get(t, s.json("list-checks"), "checks", 0); str(t, c, "name") != "Orders by id" || get(t, c, "is_checked") != true {
		t.Errorf("listed check %v: renamed and approved", c)
	}

	rc := s.json("create-check", "--type", "row_count_diff", "--params", `{"node_names":["orders","customer_orders_legacy"]}`, "--name", "Rows", "--run=false")
	rcID := str(t, rc, "check_id")
	run := s.json("run-check", "--check-id", rcID)
	if str(t, run, "status") != "Finished" || integer(t, run, "result", "orders", "curr") != demo.NumOrders ||
		integer(t, run, "result", "customer_orders_legacy", "base") != demo.LegacyRows {
		t.Errorf("run-check row_count_diff: %v", run)
	}
	if str(t, run, "check_id") != rcID || str(t, run, "run_id") == "" || str(t, run, "triggered_by") != "user" {
		t.Errorf("run ids: check %v run %v by %v", run["check_id"], run["run_id"], run["triggered_by"])
	}

	if get(t, s.json("approve-check", "--check-id", vdID), "check", "is_checked") != true {
		t.Error("approve-check did not approve")
	}
	if get(t, s.json("approve-check", "--check-id", rcID, "--approved=false"), "check", "is_checked") != false {
		t.Error("approve-check --approved=false approved")
	}
	s.json("reorder-check", "--check-id", rcID, "--index", "0")
	list = s.json("list-checks")
	var order []string
	for _, c := range get(t, list, "checks").([]any) {
		order = append(order, str(t, c, "check_id"))
	}
	if !reflect.DeepEqual(order, []string{rcID, vdID}) {
		t.Errorf("order after reorder %v, want [%s %s]", order, rcID, vdID)
	}
	if integer(t, list, "total") != 2 || integer(t, list, "approved") != 1 || integer(t, list, "outdated") != 0 {
		t.Errorf("totals %v %v %v, want 2 1 0", list["total"], list["approved"], list["outdated"])
	}

	t.Run("run-backed diffs carry their run_id", func(t *testing.T) {
		before := len(s.runs())
		out := s.json("value-diff", "--model", "orders", "--primary-key", "order_id")
		if integer(t, out, "summary", "changed") != demo.OrdersChanged {
			t.Errorf("value-diff %v", get(t, out, "summary"))
		}
		runs := s.runs()
		if len(runs) != before+1 {
			t.Fatalf("%d runs recorded, want %d", len(runs), before+1)
		}
		last := runs[len(runs)-1].(map[string]any)
		id, _ := out["run_id"].(string)
		if id == "" || id != last["run_id"] {
			t.Errorf("value-diff result run_id %q, recorded run %v: the description promises a run_id to cite", id, last["run_id"])
		}
		for _, args := range [][]string{
			{"query", "--sql-template", "select count(*) as n from {{ ref('orders') }}"},
			{"query-diff", "--sql-template", "select count(*) as n from {{ ref('orders') }}"},
			// The deprecated spelling still works.
			{"query", "--sql", "select count(*) as n from {{ ref('orders') }}"},
		} {
			before := len(s.runs())
			out := s.json(args...)
			if got := len(s.runs()); got != before+1 {
				t.Errorf("%s: %d runs recorded, want %d", args[0], got-before, 1)
			}
			if id, _ := out["run_id"].(string); id == "" {
				t.Errorf("%s: no run_id in the result", args[0])
			}
		}
	})
	t.Run("query checks", func(t *testing.T) {
		// A query check with the operation's own parameters (sql_template).
		r := execRipple(t, "--project-dir", suite.demoDir, "--duckdb", suite.dbPath, "--state-file", s.state,
			"create-check", "--type", "query", "--params", `{"sql_template":"select sum(amount) as revenue from {{ ref('orders') }}"}`, "--name", "Revenue", "--json")
		if r.code != 0 {
			t.Fatalf("create-check --type query with the query operation's parameters:\n%s", r)
		}
		out := decodeOnly(t, r)
		if get(t, out, "run_executed") != true {
			t.Fatalf("query check run: %v", out)
		}
		runs := s.runs()
		if got := get(t, runs[len(runs)-1], "result", "data", 0, 0).(json.Number).String(); got != demo.RevenueCurrent {
			t.Errorf("revenue %s, want %s", got, demo.RevenueCurrent)
		}
	})

	del := s.json("delete-check", "--check-id", vdID)
	if get(t, del, "deleted") != true {
		t.Errorf("delete-check %v", del)
	}
	if integer(t, s.json("list-checks"), "total") < 1 {
		t.Error("list after delete lost the other checks")
	}
	for _, c := range get(t, s.json("list-checks"), "checks").([]any) {
		if str(t, c, "check_id") == vdID {
			t.Errorf("deleted check %s still listed", vdID)
		}
	}
}
