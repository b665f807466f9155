package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/cli"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/demo"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/open"
)

// One contract: `ripple <op> --json` prints exactly what the operation
// returns in-process (and what the MCP tool returns).

func normalize(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return dropRunIDs(out)
}

// dropRunIDs removes run_id fields: each call records a run of its own.
func dropRunIDs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "run_id")
		for k, e := range x {
			x[k] = dropRunIDs(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropRunIDs(e)
		}
	}
	return v
}

func TestOneContract(t *testing.T) {
	t.Parallel()
	needSuite(t)
	// This process already holds the demo file open (database/sql, for the
	// independent checks) with another DuckDB configuration, and DuckDB
	// refuses a second configuration in one process: the in-process session
	// reads a copy with the same base name (hence the same catalog).
	dbCopy := filepath.Join(t.TempDir(), filepath.Base(suite.dbPath))
	data, err := os.ReadFile(suite.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dbCopy, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := ops.NewSession(ops.Config{
		Paths: dbt.Paths{ProjectDir: suite.demoDir},
		OpenWarehouse: func(ctx context.Context, p *dbt.Project) (warehouse.Conn, error) {
			return open.Open(ctx, profiles.Target{Type: "duckdb", Path: dbCopy, Database: p.ModelDatabase()}, open.OpenOptions{ReadOnly: true})
		},
		StatePath: t.TempDir() + "/state.json",
	})
	defer s.Close()
	reg := ops.Default()
	for _, tc := range []struct {
		op   string
		args string
		cli  []string
	}{
		{"row_count_diff", `{"node_names":["orders","customers","stg_payments","customer_orders_legacy"]}`, []string{"--node-names", "orders,customers,stg_payments,customer_orders_legacy"}},
		{"value_diff", `{"model":"orders","primary_key":"order_id"}`, []string{"--model", "orders", "--primary-key", "order_id"}},
		{"value_diff_detail", `{"model":"customers","primary_key":["customer_id"],"limit":5}`, []string{"--model", "customers", "--primary-key", "customer_id", "--limit", "5"}},
		{"query", `{"sql_template":"select sum(amount) as s from {{ ref('orders') }}","base":true}`, []string{"--sql-template", "select sum(amount) as s from {{ ref('orders') }}", "--base"}},
		{"query_diff", `{"sql_template":"select status, count(*) as n from {{ ref('orders') }} group by 1 order by 1"}`, []string{"--sql-template", "select status, count(*) as n from {{ ref('orders') }} group by 1 order by 1"}},
		{"lineage_diff", `{"view_mode":"all"}`, []string{"--view-mode", "all"}},
		{"schema_diff", `{}`, nil},
		{"select_nodes", `{"select":"state:modified,config.materialized:table"}`, []string{"--select", "state:modified,config.materialized:table"}},
		{"get_model", `{"model_id":"customers"}`, []string{"customers"}},
		{"impact_analysis", `{}`, nil},
		{"render_lineage_mermaid", `{}`, nil},
		{"get_cll", `{"node_id":"orders","change_analysis":true}`, []string{"--node-id", "orders", "--change-analysis"}},
		{"column_impact", `{"node_id":"stg_payments","columns":["amount"]}`, []string{"--node-id", "stg_payments", "--columns", "amount"}},
		{"erd", `{}`, nil},
		{"test_gaps", `{}`, nil},
		{"describe_entity", `{"name":"orders"}`, []string{"orders"}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			op, ok := reg.Get(tc.op)
			if !ok {
				t.Fatalf("no operation %s", tc.op)
			}
			want, err := op.CallJSON(context.Background(), s, json.RawMessage(tc.args))
			if err != nil {
				t.Fatalf("in-process %s: %v", tc.op, err)
			}
			got := rippleJSON(t, append([]string{op.CLIName()}, tc.cli...)...)
			if w := normalize(t, want); !reflect.DeepEqual(normalize(t, got), w) {
				a, _ := json.MarshalIndent(got, "", " ")
				b, _ := json.MarshalIndent(w, "", " ")
				t.Errorf("CLI and in-process results differ:\nCLI:\n%s\nin-process:\n%s", clip(a), clip(b))
			}
		})
	}
}

// demoHeadline is the text headline: models to review (split by change,
// the parts adding up), not impacted, and the largest affected row count.
var demoHeadline = regexp.MustCompile(`(\d+) impacted \((\d+) modified, (\d+) added, (\d+) removed, (\d+) downstream\), ` +
	`(\d+) not impacted(?: \((\d+) ruled out by column lineage\))?\n` +
	`  data: .*\(largest affected rows in one model: ([\d,]+)\)`)

func TestDemoIdempotent(t *testing.T) {
	t.Parallel()
	needSuite(t)
	t.Log(suite.timing)
	// Run 1 printed text, run 2 JSON, into the same directory.
	text := string(suite.demo[0])
	m := demoHeadline.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no headline in the demo output:\n%s", text)
	}
	dec := json.NewDecoder(bytes.NewReader(suite.demo[1]))
	dec.UseNumber()
	var second map[string]any
	if err := dec.Decode(&second); err != nil {
		t.Fatalf("ripple demo --json: %v\n%s", err, suite.demo[1])
	}
	n := func(s string) int {
		v, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		return v
	}
	num := func(k string) int { v, _ := get(t, second, k).(json.Number).Int64(); return int(v) }
	review, notImpacted := n(m[1]), n(m[6])
	modified, added, removed, downstream := n(m[2]), n(m[3]), n(m[4]), n(m[5])
	if modified+added+removed+downstream != review {
		t.Errorf("headline parts %d+%d+%d+%d do not add up to %d models to review", modified, added, removed, downstream, review)
	}
	if got := []int{review, modified + added + removed, downstream, notImpacted, n(m[8])}; !reflect.DeepEqual(got, []int{
		len(get(t, second, "confirmed_impacted_models").([]any)), num("modified_count"), num("downstream_count"),
		len(get(t, second, "confirmed_not_impacted_models").([]any)), num("max_affected_row_count"),
	}) {
		t.Errorf("demo runs disagree: text (review, changed, downstream, not impacted, max) %v; json %v modified, %v downstream, %v max",
			got, second["modified_count"], second["downstream_count"], second["max_affected_row_count"])
	}
	if n(m[8]) != demo.PaymentsChanged {
		t.Errorf("max affected rows %s, want %d", m[8], demo.PaymentsChanged)
	}
	// The demo's JSON is impact_analysis's JSON (one contract), on the rebuilt files.
	ia := rippleJSON(t, "impact-analysis")
	if !reflect.DeepEqual(normalize(t, second), normalize(t, ia)) {
		t.Errorf("ripple demo --json differs from ripple impact-analysis --json on the demo")
	}
	// Logs went to stderr only.
	for i, e := range suite.demoErr {
		if !strings.Contains(string(e), "building the demo project") {
			t.Errorf("demo run %d stderr: %s", i+1, e)
		}
	}

	t.Run("suggested commands exist", func(t *testing.T) {
		reg := ops.Default()
		var cmds []string
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			// The binary is not on the PATH here, so the demo names it by
			// its path (TestDemoPrintsRunnableCommands runs the lines).
			if rest, ok := strings.CutPrefix(line, suite.bin+" "); ok {
				line = "ripple " + rest
			}
			if !strings.HasPrefix(line, "ripple ") {
				continue
			}
			f := strings.Fields(line)
			// ripple --project-dir D --duckdb F <command> ...
			for i := 1; i < len(f); i++ {
				if strings.HasPrefix(f[i], "--") {
					i++
					continue
				}
				cmds = append(cmds, f[i])
				break
			}
		}
		sort.Strings(cmds)
		if len(cmds) == 0 {
			t.Fatalf("no suggested commands in:\n%s", text)
		}
		// Hand-written commands (serve, run, check-base, …) exist too.
		handWritten := map[string]bool{}
		for _, c := range cli.NewRootCmd(cli.IOStreams{Out: io.Discard, ErrOut: io.Discard}).Commands() {
			handWritten[c.Name()] = true
		}
		for _, c := range cmds {
			if _, ok := reg.Get(c); !ok && !handWritten[c] {
				t.Errorf("the demo suggests `ripple %s`, which does not exist", c)
			}
		}
	})
}
