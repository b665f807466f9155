package ops

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/demo"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/sqldiff"
)

func TestSQLDiffOp(t *testing.T) {
	s := NewSession(Config{})
	out, err := callRaw(s, "sql_diff", map[string]any{"dialect": "duckdb",
		"base_sql": "with o as (select id, amount from orders where id not in (1013, 1014)) select id, amount from o",
		"sql":      "with x as (select id, amount from orders where id not in (777, 15001)) select id, amount from x"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(out)
	want := `{"cosmetic":false,"changes":[{"kind":"filter","column":"id","columns":["id","amount"],"scope":"x","before":"id NOT IN (1013, 1014)","after":"id NOT IN (777, 15001)"}]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	out, err = callRaw(s, "sql_diff", map[string]any{"base_sql": "select a from t", "sql": "select a from"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = json.Marshal(out)
	// Operations never return a null list: the change list is empty and
	// error says why.
	want = `{"cosmetic":false,"changes":[],"error":{"side":"current","message":"line 1, column 14: expected a table, found end of input","line":1,"column":14}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := callRaw(s, "sql_diff", map[string]any{"base_sql": "select 1", "sql": " "}); err == nil || !strings.Contains(err.Error(), "both base_sql and sql are required") {
		t.Errorf("empty sql: %v", err)
	}
}

// TestDemoCodeChanges: each modified model of the demo says what its code
// change is.
func TestDemoCodeChanges(t *testing.T) {
	d, err := demo.Build(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(Config{Paths: d.Built.Paths})
	defer s.Close()
	gm, err := callRaw(s, "get_model", map[string]any{"model_id": "stg_payments"})
	if err != nil {
		t.Fatal(err)
	}
	cc := gm.(*GetModelResult).CodeChange
	if cc == nil || cc.Cosmetic || cc.Compared != sqldiff.ComparedCompiled || cc.Summary != "column_expression: CAST((amount // 100) AS DECIMAL(18,2)) AS amount → CAST((amount / 100) AS DECIMAL(18,2)) AS amount" {
		t.Errorf("stg_payments code_change: %+v", cc)
	}
	ia, err := callRaw(s, "impact_analysis", map[string]any{"skip_value_diff": true})
	if err != nil {
		t.Fatal(err)
	}
	summaries := map[string]string{}
	for _, m := range ia.(*impact.Result).ConfirmedImpactedModels {
		if m.CodeChange != nil {
			summaries[m.Name] = m.CodeChange.Summary
			if len(m.CodeChange.Changes) != 0 {
				t.Errorf("%s: compact response lists the changes", m.Name)
			}
		}
	}
	want := map[string]string{
		"stg_payments": "column_expression: CAST((amount // 100) AS DECIMAL(18,2)) AS amount → CAST((amount / 100) AS DECIMAL(18,2)) AS amount",
		"customers":    "column_added: full_name = (customers.first_name || ' ') || customers.last_name",
	}
	for k, v := range want {
		if summaries[k] != v {
			t.Errorf("%s summary:\ngot  %q\nwant %q", k, summaries[k], v)
		}
	}
	if len(summaries) != len(want) {
		t.Errorf("summaries %v, want only %v", summaries, want)
	}
}

func cosmeticScenario(p *dbtfixture.Project) {
	p.Seed("raw", "id,v\n1,10\n2,20\n")
	p.Model("stg", dbtfixture.View, "select id, v from {{ ref('raw') }} where v <> 0",
		"-- same rows, new layout\nSELECT r.id,\n       r.v\nFROM {{ ref('raw') }} AS r\nWHERE (r.v != 0)")
	p.Model("mart", dbtfixture.Table, "select id, v * 2 as dbl from {{ ref('stg') }}", "select id, v * 2 as dbl from {{ ref('stg') }}")
}

// TestCosmeticEditIsNotImpacted: a cosmetic-only edit impacts nothing, nor
// what only it reaches; Config.KeepCosmetic (--keep-cosmetic) keeps dbt's
// body semantics.
func TestCosmeticEditIsNotImpacted(t *testing.T) {
	p := dbtfixture.New(t)
	cosmeticScenario(p)
	b := p.MustBuild(context.Background())
	for _, tt := range []struct {
		keep        bool
		impacted    []string
		notImpacted []string
		cosmetic    []string
	}{{false, nil, []string{"mart", "stg"}, []string{"stg"}}, {true, []string{"stg", "mart"}, nil, nil}} {
		s := NewSession(Config{Paths: b.Paths, KeepCosmetic: tt.keep})
		defer s.Close()
		deps, err := impactDeps(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		r, err := impact.Analyze(context.Background(), deps, impact.Input{SkipValueDiff: true})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, m := range r.ConfirmedImpactedModels {
			names = append(names, m.Name)
		}
		if strings.Join(names, ",") != strings.Join(tt.impacted, ",") || strings.Join(r.ConfirmedNotImpactedModels, ",") != strings.Join(tt.notImpacted, ",") ||
			strings.Join(r.CosmeticOnly(), ",") != strings.Join(tt.cosmetic, ",") {
			t.Errorf("keep=%v: impacted %v not impacted %v cosmetic %v, want %v, %v and %v", tt.keep, names, r.ConfirmedNotImpactedModels, r.CosmeticOnly(), tt.impacted, tt.notImpacted, tt.cosmetic)
		}
		if tt.keep && (r.ConfirmedImpactedModels[0].CodeChange == nil || !r.ConfirmedImpactedModels[0].CodeChange.Cosmetic) {
			t.Errorf("stg code_change: %+v", r.ConfirmedImpactedModels[0].CodeChange)
		}
	}
}
