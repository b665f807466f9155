package diff

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestKeysJSON(t *testing.T) {
	var in ValueDiffInput
	if err := json.Unmarshal([]byte(`{"model":"m","primary_key":"id"}`), &in); err != nil || len(in.PrimaryKey) != 1 || in.PrimaryKey[0] != "id" {
		t.Fatalf("string key: %v %v", err, in.PrimaryKey)
	}
	if err := json.Unmarshal([]byte(`{"model":"m","primary_key":["a","b"]}`), &in); err != nil || strings.Join(in.PrimaryKey, ",") != "a,b" {
		t.Fatalf("list key: %v %v", err, in.PrimaryKey)
	}
	if err := json.Unmarshal([]byte(`{"model":"m","primary_key":3}`), &in); err == nil {
		t.Fatal("numeric key accepted")
	}
}

// TestCheckReadOnly: agent SQL goes through the dialect's classifier
// (internal/sqlguard has the full table); here, that the Env passes its
// dialect, so a DuckDB string with '\' is three statements.
func TestCheckReadOnly(t *testing.T) {
	env := Env{Dialect: mustDialect(t, "duckdb")}
	for sql, want := range map[string]string{
		"select 1": "select 1",
		"  WITH x AS (select 1) select * from x;  ": "WITH x AS (select 1) select * from x",
		"select ';' as s; -- done":                  "select ';' as s",
		"show tables":                               "show tables",
	} {
		got, err := env.checkReadOnly(context.Background(), sql)
		if err != nil || got != want {
			t.Errorf("checkReadOnly(%q) = %q, %v; want %q", sql, got, err, want)
		}
	}
	for sql, want := range map[string]string{
		`SELECT '\' ; SET memory_limit='1MB'; SELECT 1 --'`:     "more than one statement",
		"with d as (delete from t returning *) select * from d": "DELETE",
		"update t set x = 1":   "UPDATE",
		"select 'unterminated": "unterminated",
		"-- only a comment":    "empty",
	} {
		if _, err := env.checkReadOnly(context.Background(), sql); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("checkReadOnly(%q) err = %v, want %q", sql, err, want)
		}
	}
}

func TestRenderSQL(t *testing.T) {
	proj := handProject(t, "db", "base_s", "cur_s", model{name: "orders"}, model{name: "raw_orders", kind: "seed"}, model{name: "e", mat: "ephemeral"})
	env := Env{Project: proj, Dialect: mustDialect(t, "snowflake")}
	for sql, want := range map[string]string{
		"select * from {{ ref('orders') }}":                `select * from "db"."cur_s"."orders"`,
		`select * from {{ref("orders")}}`:                  `select * from "db"."cur_s"."orders"`,
		"select * from {{- ref( 'proj' , 'orders' ) -}} o": `select * from "db"."cur_s"."orders" o`,
		"select * from {{ ref('raw_orders') }}":            `select * from "db"."cur_s"."raw_orders"`,
		"select * from {{ ref('orders', v=2) }}":           `select * from "db"."cur_s"."orders"`,
		"select '{{ ref(''orders'') }}'":                   "",
	} {
		got, err := env.renderSQL(sql, Current)
		if want == "" {
			if err == nil {
				t.Errorf("renderSQL(%q) = %q, want an error", sql, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("renderSQL(%q) = %q, %v; want %q", sql, got, err, want)
		}
	}
	got, err := env.renderSQL("select * from {{ ref('orders') }}", Base)
	if err != nil || got != `select * from "db"."base_s"."orders"` {
		t.Fatalf("base: %q %v", got, err)
	}
	for sql, want := range map[string]string{
		"select * from {{ ref('other_pkg', 'orders') }}": "other_pkg.orders",
		"select * from {{ ref('e') }}":                   "ephemeral",
		"select * from {{ source('raw', 'x') }}":         "source('raw', 'x')",
	} {
		if _, err := env.renderSQL(sql, Current); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("renderSQL(%q) err = %v, want %q", sql, err, want)
		}
	}
}

func TestCanceled(t *testing.T) {
	env := fixtureEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ValueDiff(ctx, env, ValueDiffInput{Model: "orders", PrimaryKey: Keys{"id"}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("value_diff: %v", err)
	}
	if _, err := RowCountDiff(ctx, env, RowCountDiffInput{NodeNames: []string{"orders"}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("row_count_diff: %v", err)
	}
}

func TestProgress(t *testing.T) {
	env := fixtureEnv(t)
	var got []Progress
	env.Progress = func(p Progress) { got = append(got, p) }
	if _, err := ValueDiff(context.Background(), env, ValueDiffInput{Model: "orders", PrimaryKey: Keys{"id"}}); err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 || got[len(got)-1].Percentage != 1 || got[0].Op != "value_diff" {
		t.Fatalf("progress = %+v", got)
	}
}

func TestNoWarehouse(t *testing.T) {
	if _, err := ValueDiff(context.Background(), Env{}, ValueDiffInput{Model: "x", PrimaryKey: Keys{"id"}}); err == nil || !strings.Contains(err.Error(), "dbt docs generate") {
		t.Fatalf("no project: %v", err)
	}
	proj := handProject(t, "db", "a", "b", model{name: "orders"})
	if _, err := ValueDiff(context.Background(), Env{Project: proj}, ValueDiffInput{Model: "orders", PrimaryKey: Keys{"id"}}); err == nil || !strings.Contains(err.Error(), "no warehouse connection") {
		t.Fatalf("no conn: %v", err)
	}
}

func FuzzRenderSQL(f *testing.F) {
	proj := handProject(f, "db", "base_s", "cur_s", model{name: "orders"})
	env := Env{Project: proj, Dialect: mustDialect(f, "duckdb")}
	for _, s := range []string{"select * from {{ ref('orders') }}", "{{ source('a','b') }}", "{{ ref(\"orders\") }} {{", "{% if x %}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		out, err := env.renderSQL(sql, Current)
		if err == nil && (strings.Contains(out, "{{") || strings.Contains(out, "{%")) {
			t.Fatalf("renderSQL(%q) left template syntax: %q", sql, out)
		}
	})
}

// TestEdgeLabel: histogram labels carry five significant digits of the bin
// width and no float noise; the exact edges stay in bin_edges.
func TestEdgeLabel(t *testing.T) {
	for _, c := range []struct {
		edge, width float64
		want        string
	}{
		{30.44749999999998, 5.8895, "30.4475"},
		{1, 5.8895, "1"},
		{6.8895, 5.8895, "6.8895"},
		{1234.5678, 250, "1234.57"},
		{0.0001234567, 0.00001, "0.000123457"},
		{-3.5, 0, "-3.5"},
	} {
		if got := edgeLabel(c.edge, c.width); got != c.want {
			t.Errorf("edgeLabel(%v, %v) = %q, want %q", c.edge, c.width, got, c.want)
		}
	}
}
