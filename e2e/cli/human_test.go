package cli_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/cli"
	"github.com/ripple-data/ripple/internal/demo"
	"github.com/ripple-data/ripple/internal/ops"
)

// humanArgs are the arguments every command needs on the demo project, by
// command name: operations of the registry and the hand-written commands.
// {dir} is a fresh temporary directory, {check} the id of a check created
// just before (so delete-check has one to delete each time). A command
// missing here fails TestEveryCommandPrintsText, so a new command gets its
// human text checked from the day it is added.
var humanArgs = map[string][]string{
	"row-count-diff":         {"orders", "customers"},
	"row-count":              {"orders", "customers"},
	"schema-diff":            nil,
	"query":                  {"--sql-template", "select * from {{ ref('orders') }}"},
	"query-diff":             {"--sql-template", "select order_id, amount from {{ ref('orders') }}", "--primary-keys", "order_id"},
	"value-diff":             {"--model", "orders", "--primary-key", "order_id"},
	"value-diff-detail":      {"--model", "orders", "--primary-key", "order_id"},
	"profile-diff":           {"--model", "orders"},
	"profile":                {"--model", "orders"},
	"top-k-diff":             {"--model", "orders", "--column-name", "status"},
	"histogram-diff":         {"--model", "orders", "--column-name", "amount"},
	"lineage-diff":           nil,
	"select-nodes":           {"--select", "+orders"},
	"impact-analysis":        nil,
	"render-lineage-mermaid": nil,
	"get-model":              {"customers"},
	"get-node":               {"orders"},
	"lineage":                {"--focus", "orders", "--direction", "upstream"},
	"list-opaque":            nil,
	"get-cll":                {"--node-id", "orders", "--column", "amount"},
	"analyze-model":          {"customers"},
	"column-impact":          {"--node-id", "stg_payments", "--columns", "amount"},
	"list-checks":            nil,
	"create-check":           {"--type", "row_count_diff", "--params", `{"node_names":["orders"]}`, "--name", "Rows"},
	"run-check":              {"--check-id", "{check}"},
	"approve-check":          {"--check-id", "{check}"},
	"reorder-check":          {"--check-id", "{check}", "--index", "0"},
	"delete-check":           {"--check-id", "{check}"},
	"summary":                nil,
	"project-summary":        nil,
	"search":                 {"customer"},
	"erd":                    nil,
	"test-gaps":              nil,
	"state-policies":         nil,
	"find-data":              {"customer lifetime value"},
	"describe-entity":        {"orders"},
	"plan-query":             {"--entities", "customers,orders"},
	"compare-observed":       {"--observed-file", "{dir}/observed.csv", "--allow-dir", "{dir}"},
	"openlineage-export":     {"--models", "orders"},
	// Hand-written commands.
	"sql-lineage": {"--dialect", "duckdb", "--schema", "{dir}/schema.json", "--sql", "{dir}/q.sql"},
	"sql-diff":    {"--dialect", "duckdb", "--base-sql", "select a from t where x <> 1", "--sql", "select a, b from t where x != 2"},
	"demo":        {"--dir", "{dir}/demo"},
	"run":         {"--config", "{dir}/ripple.yml", "--fail-on-mismatch=false"},
	"check-base":  nil,
	"version":     nil,
}

// notOneShot are commands that serve until stopped or belong to cobra;
// they have tests of their own (serve and mcp) or print no result.
var notOneShot = map[string]bool{"serve": true, "mcp": true, "completion": true, "help": true}

// commandNames lists the root command's subcommands: the registry's
// operations and the hand-written commands alike.
func commandNames(t *testing.T) []string {
	t.Helper()
	root := cli.NewRootCmd(cli.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	var names []string
	for _, c := range root.Commands() {
		if !notOneShot[c.Name()] {
			names = append(names, c.Name())
		}
	}
	sort.Strings(names)
	return names
}

// TestEveryCommandPrintsText runs every command on the demo without
// --json: it must exit 0 and print human text — not nothing, not JSON. With
// --json the same command must print exactly one JSON document.
func TestEveryCommandPrintsText(t *testing.T) {
	t.Parallel()
	needSuite(t)
	names := commandNames(t)
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
		if _, ok := humanArgs[n]; !ok {
			t.Errorf("command %s has no arguments in humanArgs (e2e/cli/human_test.go): add them so its human text is checked", n)
		}
	}
	for _, op := range ops.Default().Ops() {
		if !have[op.CLIName()] {
			t.Errorf("operation %s has no command %s", op.Name, op.CLIName())
		}
	}
	for n := range humanArgs {
		if !have[n] {
			t.Errorf("humanArgs names %s, which is not a command", n)
		}
	}
	dir := t.TempDir()
	files := map[string]string{
		"observed.csv": "source_table,source_column,target_table,target_column\n" +
			"jaffle_shop.current.stg_payments,amount,jaffle_shop.current.orders,amount\n",
		"schema.json": `{"orders": {"order_id": "int", "amount": "decimal"}}`,
		"q.sql":       `select order_id, sum(amount) as paid from orders group by order_id`,
	}
	// A state file of this test's own: the check commands change it.
	state := filepath.Join(dir, "state.json")
	global := []string{"--project-dir", suite.demoDir, "--duckdb", suite.dbPath, "--state-file", state}
	newCheck := func(t *testing.T) string {
		r := execRipple(t, append(global, "create-check", "--type", "row_count_diff", "--params", `{"node_names":["orders"]}`, "--name", "Rows", "--run=false", "--json")...)
		if r.code != 0 {
			t.Fatalf("create-check for the check commands:\n%s", r)
		}
		return str(t, decodeOnly(t, r), "check_id")
	}
	for _, name := range names {
		args, ok := humanArgs[name]
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			for _, asJSON := range []bool{false, true} {
				sub := t.TempDir() // {dir}: fresh per run (demo writes into it)
				for file, body := range files {
					if err := os.WriteFile(filepath.Join(sub, file), []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				full := append(append([]string{}, global...), name)
				for _, a := range args {
					a = strings.ReplaceAll(a, "{dir}", sub)
					if strings.Contains(a, "{check}") {
						a = strings.ReplaceAll(a, "{check}", newCheck(t))
					}
					full = append(full, a)
				}
				if asJSON {
					full = append(full, "--json")
				}
				r := execRipple(t, full...)
				if r.code != 0 {
					t.Errorf("exit %d, want 0:\n%s", r.code, r)
					continue
				}
				if asJSON {
					decodeOnly(t, r)
					continue
				}
				checkHuman(t, r)
			}
		})
	}
}

// checkHuman fails when stdout is empty, is JSON, or starts like JSON.
func checkHuman(t *testing.T, r result) {
	t.Helper()
	text := bytes.TrimSpace(r.stdout)
	switch {
	case len(text) == 0:
		t.Errorf("printed nothing without --json:\n%s", r)
	case text[0] == '{' || text[0] == '[':
		t.Errorf("printed JSON-like text without --json:\n%s", r)
	case json.Valid(text):
		t.Errorf("printed a JSON value without --json:\n%s", r)
	}
	if n := bytes.Count(r.stdout, []byte("\n")); n > 200 {
		t.Errorf("printed %d lines without --json: a long result should be summarised with a pointer to --json:\n%s", n, r)
	}
}

// TestDiffTextOnTheDemo reads the demo's known numbers in the human text of
// the diff commands: counts with thousands separators, shares that keep
// their precision, the change of every table row. Table lines compare by
// their cells (whitespace-separated), so column widths may change.
func TestDiffTextOnTheDemo(t *testing.T) {
	t.Parallel()
	// The literals below are these numbers, spelt with separators.
	if demo.OrdersChanged != 4448 || demo.OrdersCreditCardChanged != 2040 || demo.RawPayments != 12029 || demo.NumOrders != 10000 {
		t.Fatalf("the demo's numbers changed: update the expected text")
	}
	for _, tc := range []struct {
		args  []string
		lines []string // exact lines, or cells of a table line when prefixed with "|"
	}{
		{[]string{"value-diff", "--model", "orders", "--primary-key", "order_id"}, []string{
			"10,000 keys (order_id): 0 added, 0 removed, 4,448 changed (44.5%)",
			"|credit_card_amount 7,960 79.6% 16.3077 → 16.4161 (+0.7%)",
			"|order_id 10,000 100%",
		}},
		{[]string{"value-diff-detail", "--model", "orders", "--primary-key", "order_id"}, []string{
			"differing rows by order_id: 1,000 rows of 8,896 (a changed key shows its base and its current row)",
			"… 950 more rows (all of them with --json)",
			"result capped at 1,000 rows: 8,896 rows in all (raise --limit)",
		}},
		{[]string{"query-diff", "--sql-template", "select order_id, amount from {{ ref('orders') }}", "--primary-keys", "order_id"}, []string{
			"by key: 0 added, 0 removed, 4,448 changed",
		}},
		{[]string{"row-count-diff"}, []string{
			"|stg_payments 12,029 12,029 =",
			"|customer_segments N/A (not_in_manifest) 2,000 added",
			"|customer_orders_legacy 1,798 N/A (not_in_manifest) removed",
		}},
		{[]string{"top-k-diff", "--model", "orders", "--column-name", "status"}, []string{
			"|completed 6,016 6,016 =",
			"base: 10,000 non-NULL of 10,000 rows; current: 10,000 non-NULL of 10,000 rows",
		}},
		{[]string{"schema-diff"}, []string{
			"1 column change",
			"|model.jaffle_shop.customers full_name added — VARCHAR",
		}},
		{[]string{"query", "--sql-template", "select count(*) as n, sum(amount) as revenue from {{ ref('orders') }}"}, []string{
			"1 row",
			"|10,000 366,214.35",
		}},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			r := ripple(t, tc.args...)
			if r.code != 0 {
				t.Fatalf("%s", r)
			}
			lines := strings.Split(string(r.stdout), "\n")
			for _, want := range tc.lines {
				found := false
				for _, l := range lines {
					if cells, ok := strings.CutPrefix(want, "|"); ok {
						found = strings.Join(strings.Fields(l), " ") == cells
					} else {
						found = l == want
					}
					if found {
						break
					}
				}
				if !found {
					t.Errorf("no line %q in:\n%s", want, r.stdout)
				}
			}
		})
	}
}
