package dbtfixture

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// fakeResolver resolves every ref and source to a fixed schema.
type fakeResolver struct{ macros map[string]*macroSpec }

func (f fakeResolver) ref(pkg, name string) (string, error) {
	if name == "missing" {
		return "", fmt.Errorf("no model %s", name)
	}
	if pkg != "" {
		return quoteRelation("db", pkg, name), nil
	}
	return quoteRelation("db", "s", name), nil
}

func (f fakeResolver) source(src, table string) (string, error) {
	return quoteRelation("db", src, table), nil
}

func (f fakeResolver) this() string { return `"db"."s"."me"` }

func (f fakeResolver) macro(name string) (*macroSpec, string, bool) {
	m, ok := f.macros[name]
	if !ok {
		return nil, "", false
	}
	return m, m.bodies[1], true
}

func TestRender(t *testing.T) {
	r := fakeResolver{macros: map[string]*macroSpec{
		"cents": {name: "cents", params: []string{"col"}, bodies: [2]string{"", "({{ col }} / 100)"}},
		"rel":   {name: "rel", params: []string{"m"}, bodies: [2]string{"", "{{ ref('x') }}"}},
	}}
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "select * from {{ ref('a') }}", want: `select * from "db"."s"."a"`},
		{in: `select * from {{ref("p", "a")}} join {{ source('raw', 't') }}`, want: `select * from "db"."p"."a" join "db"."raw"."t"`},
		{in: "select {{ cents('amount') }} from {{ this }}", want: `select (amount / 100) from "db"."s"."me"`},
		{in: "{{ config(materialized='table') }}select 1{# comment #}", want: "select 1"},
		{in: "select 1 {% if is_incremental() %}where x > (select max(x) from {{ this }}){% endif %}", want: "select 1 "},
		{in: "select * from {{ rel('y') }}", want: `select * from "db"."s"."x"`},
		{in: "select * from {{ ref('missing') }}", err: "no model missing"},
		{in: "{% for x in y %}{% endfor %}", err: "unsupported Jinja statement"},
		{in: "{{ var('x') }}", err: `unknown macro "var"`},
		{in: "{{ ref('a', 'b', 'c') }}", err: "one or two arguments"},
		{in: "{{ cents('a', 'b') }}", err: "takes 1 arguments"},
		{in: "{{ x + 1 }}", err: "unsupported Jinja expression"},
	} {
		got, err := render(tc.in, r)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("render(%q) error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("render(%q): %v", tc.in, err)
		case got.compiled != tc.want:
			t.Errorf("render(%q) = %q, want %q", tc.in, got.compiled, tc.want)
		}
	}
}

func TestInjectCTEs(t *testing.T) {
	ctes := []cte{{name: "__dbt__cte__a", sql: "select 1"}, {name: "__dbt__cte__b", sql: "select 2"}}
	for _, tc := range []struct{ in, want string }{
		{"select * from __dbt__cte__a", "with __dbt__cte__a as (\nselect 1\n), __dbt__cte__b as (\nselect 2\n)\nselect * from __dbt__cte__a"},
		{"\nWITH x as (select 1) select * from x", "\nwith __dbt__cte__a as (\nselect 1\n), __dbt__cte__b as (\nselect 2\n), x as (select 1) select * from x"},
		{"select * from without_cte", "with __dbt__cte__a as (\nselect 1\n), __dbt__cte__b as (\nselect 2\n)\nselect * from without_cte"},
	} {
		if got := injectCTEs(tc.in, ctes); got != tc.want {
			t.Errorf("injectCTEs(%q) =\n%q\nwant\n%q", tc.in, got, tc.want)
		}
	}
}

func TestValuesSQL(t *testing.T) {
	got, err := valuesSQL([]string{"id INTEGER", "name"}, Rows{{1, "O'Hara"}, {2, nil}})
	if err != nil {
		t.Fatal(err)
	}
	want := "select\n    cast(id as INTEGER) as id,\n    name\nfrom (values\n    (1, 'O''Hara'),\n    (2, null)\n) as t(id, name)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := valuesSQL([]string{"id"}, Rows{{1, 2}}); err == nil {
		t.Error("want an error for a row of the wrong width")
	}
	if _, err := valuesSQL([]string{"id"}, Rows{{struct{}{}}}); err == nil {
		t.Error("want an error for an unsupported value")
	}
}

func TestBuildErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		setup func(p *Project)
		err   string
	}{
		{"missing ref", func(p *Project) {
			p.Model("a", Table, "select 1 as x", "select * from {{ ref('gone') }}")
		}, `model.ripple_test.a refs "gone", which does not exist on the current side`},
		{"disabled ref", func(p *Project) {
			p.Model("a", Table, "select 1 as x", "select 1 as x").Base().Disabled()
			p.Model("b", Table, "select * from {{ ref('a') }}", "select * from {{ ref('a') }}")
		}, "which is disabled on the base side"},
		{"cycle", func(p *Project) {
			p.Model("a", View, "select * from {{ ref('b') }}", "select 1 as x")
			p.Model("b", View, "select * from {{ ref('a') }}", "select 1 as x")
		}, "dependency cycle"},
		{"duplicate", func(p *Project) {
			p.Model("a", Table, "select 1 as x", "select 1 as x")
			p.Model("a", Table, "select 1 as x", "select 1 as x")
		}, "declared twice"},
		{"bad sql", func(p *Project) {
			p.Model("a", Table, "select 1 as x", "selec 1")
		}, "building model.ripple_test.a"},
		{"unknown source", func(p *Project) {
			p.Model("a", Table, "select * from {{ source('s', 't') }}", "select 1 as x")
		}, "not declared"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(t)
			tc.setup(p)
			_, err := p.Build(ctx, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want it to contain %q", err, tc.err)
			}
		})
	}
}

func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"select * from {{ ref('a') }}",
		"{{ source('a','b') }} {{ this }}",
		"{% if is_incremental() %}x{% endif %}",
		"{{ cents('x') }}",
		"{{ ref(\"a\", 'b') }}{# c #}",
		"{{",
		"{{ ref('a' }}",
	} {
		f.Add(s)
	}
	r := fakeResolver{macros: map[string]*macroSpec{
		"cents": {name: "cents", params: []string{"col"}, bodies: [2]string{"", "({{ col }} / 100) {{ cents(col) }}"}},
	}}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := render(s, r)
		if err == nil && out == nil {
			t.Fatal("nil result without error")
		}
	})
}
