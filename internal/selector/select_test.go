package selector

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
)

type obj = map[string]any

// spec describes one node of a Recce DbtTestHelper-style project: the
// unique id is the name; base/cur are the raw code on each side ("" = the
// side has no such node).
type spec struct {
	id, base, cur string
	deps          []string
	typ, pkg      string
	disabled      bool
	patch         func(n obj) // edits the node JSON (both sides)
}

func nodeJSON(s spec, code string) obj {
	typ, pkg := s.typ, s.pkg
	if typ == "" {
		typ = "model"
	}
	if pkg == "" {
		pkg = "recce_test"
	}
	deps := s.deps
	if deps == nil {
		deps = []string{}
	}
	n := obj{
		"unique_id": s.id, "name": s.id, "resource_type": typ, "package_name": pkg,
		"path": s.id + ".sql", "original_file_path": "models/" + s.id + ".sql",
		"fqn": []string{pkg, s.id}, "schema": "main", "alias": s.id, "raw_code": code,
		"checksum": obj{"name": "sha256", "checksum": code},
		"config":   obj{"materialized": "table", "tags": []string{"test_tag"}, "enabled": !s.disabled},
		"tags":     []string{"test_tag"}, "depends_on": obj{"nodes": deps, "macros": []string{}},
	}
	if s.patch != nil {
		s.patch(n)
	}
	return n
}

func decode(t testing.TB, m obj) *dbt.Manifest {
	t.Helper()
	m["metadata"] = obj{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "project_name": "recce_test", "adapter_type": "duckdb"}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	man, err := dbt.DecodeManifest(data, "test")
	if err != nil {
		t.Fatal(err)
	}
	return man
}

// project builds the base and current manifests from specs, sorting each
// node into its manifest section by resource type.
func project(t testing.TB, specs []spec) (*dbt.Graph, map[string]dbt.NodeState) {
	t.Helper()
	side := func(cur bool) *dbt.Manifest {
		m := obj{}
		for _, s := range specs {
			code := s.base
			if cur {
				code = s.cur
			}
			if code == "" {
				continue
			}
			n := nodeJSON(s, code)
			if s.disabled {
				d, _ := m["disabled"].(obj)
				if d == nil {
					d = obj{}
					m["disabled"] = d
				}
				d[s.id] = []obj{n}
				continue
			}
			key := "nodes"
			switch n["resource_type"] {
			case "source":
				key = "sources"
			case "exposure":
				key = "exposures"
			case "metric":
				key = "metrics"
			case "semantic_model":
				key = "semantic_models"
			case "saved_query":
				key = "saved_queries"
			case "unit_test":
				key = "unit_tests"
			}
			sec, _ := m[key].(obj)
			if sec == nil {
				sec = obj{}
				m[key] = sec
			}
			sec[s.id] = n
		}
		return decode(t, m)
	}
	base, cur := side(false), side(true)
	return dbt.NewGraph(base, cur), dbt.CompareState(base, cur)
}

type selCase struct {
	name string
	opts Options
	want []string
}

func runCases(t *testing.T, specs []spec, cases []selCase) {
	t.Helper()
	g, st := project(t, specs)
	s := New(g, st, "recce_test")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Select(c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == nil {
				c.want = []string{}
			}
			c.want = slices.Sorted(slices.Values(c.want))
			if !slices.Equal(got, c.want) {
				t.Errorf("Select(%+v) = %v, want %v", c.opts, got, c.want)
			}
		})
	}
}

func sel(s string) Options { return Options{Select: s} }

// Recce tests/adapter/dbt_adapter/test_selector.py: test_select_nodes.
func TestRecceSelectNodes(t *testing.T) {
	specs := []spec{
		{id: "customers_1", base: "select 1", cur: "select 2"},
		{id: "customers_2", base: "select * from customers_1", cur: "select * from customers_1", deps: []string{"customers_1"}},
	}
	both := []string{"customers_1", "customers_2"}
	one := []string{"customers_1"}
	runCases(t, specs, []selCase{
		{"name", sel("customers_1"), one},
		{"resource_type:model", sel("resource_type:model"), both},
		{"tag", sel("tag:test_tag"), both},
		{"tag none", sel("tag:test_tag2"), nil},
		{"config incremental", sel("config.materialized:incremental"), nil},
		{"config table", sel("config.materialized:table"), both},
		{"state:modified", sel("state:modified"), one},
		{"union", sel("customers_1 customers_2"), both},
		{"intersection of two names", sel("customers_1,customers_2"), nil},
		{"intersection config,tag", sel("config.materialized:table,tag:test_tag"), both},
		{"intersection config,tag none", sel("config.materialized:table,tag:test_tag2"), nil},
		{"exclude only", Options{Exclude: "customers_1"}, []string{"customers_2"}},
		{"select and exclude", Options{Select: "customers_1", Exclude: "customers_2"}, one},
		{"state:modified+", sel("state:modified+"), both},
		{"+state:modified", sel("+state:modified"), one},
	})
	specs = append(specs,
		spec{id: "snapshot_1", typ: "snapshot", base: "select 1", cur: "select 2"},
		spec{id: "use_snapshot", base: "select * from snapshot_1", cur: "select * from snapshot_1", deps: []string{"snapshot_1"}},
	)
	runCases(t, specs, []selCase{
		{"resource_type:snapshot", sel("resource_type:snapshot"), []string{"snapshot_1"}},
		{"resource_type:snapshot+", sel("resource_type:snapshot+"), []string{"snapshot_1", "use_snapshot"}},
		{"state:modified,resource_type:snapshot", sel("state:modified,resource_type:snapshot"), []string{"snapshot_1"}},
	})
}

// test_select_nodes_removed_and_added / one-sided models / disabled child.
func TestRecceRemovedAddedDisabled(t *testing.T) {
	runCases(t, []spec{
		{id: "customers_1", base: "select 1", cur: "select 2"},
		{id: "customers_2", base: "select * from customers_1", deps: []string{"customers_1"}},
		{id: "customers_3", cur: "select * from customers_1", deps: []string{"customers_1"}},
	}, []selCase{
		{"customers_1+", sel("customers_1+"), []string{"customers_1", "customers_2", "customers_3"}},
		{"+customers_2 (removed)", sel("+customers_2"), []string{"customers_1", "customers_2"}},
		{"+customers_3 (added)", sel("+customers_3"), []string{"customers_1", "customers_3"}},
		{"state:modified", sel("state:modified"), []string{"customers_1", "customers_2", "customers_3"}},
		{"state:new", sel("state:new"), []string{"customers_3"}},
		{"state:old", sel("state:old"), []string{"customers_1", "customers_2"}},
		{"removed is body-modified", sel("state:modified.body"), []string{"customers_1", "customers_2", "customers_3"}},
		{"added is config-modified, removed is not", sel("state:modified.configs"), []string{"customers_3"}},
		{"macros only looks at macros", sel("state:modified.macros"), nil},
	})
	runCases(t, []spec{
		{id: "customers_1", base: "select 1"},
		{id: "customers_2", cur: "select 1"},
	}, []selCase{{"one-sided models", sel("state:modified"), []string{"customers_1", "customers_2"}}})
	runCases(t, []spec{
		{id: "customers_1", base: "select 1", cur: "select 2"},
		{id: "customers_2", base: "select * from customers_1", cur: "select * from customers_1", deps: []string{"customers_1"}, disabled: true},
	}, []selCase{
		{"disabled child", sel("customers_1+"), []string{"customers_1"}},
		{"disabled never selected", sel("customers_2"), nil},
	})
}

// test_select_nodes_packages_and_view_mode.
func TestReccePackagesViewMode(t *testing.T) {
	specs := []spec{
		{id: "customers_1", base: "select 1", cur: "select 1"},
		{id: "customers_2", base: "select 2", cur: "select 2", deps: []string{"customers_1"}},
		{id: "customers_3", base: "select 3", cur: "select 33", deps: []string{"customers_2"}},
		{id: "customers_4", base: "select 4", cur: "select 4", deps: []string{"customers_3"}, pkg: "other_package"},
		{id: "customers_5", base: "select 5", cur: "select 5", deps: []string{"customers_3"}},
	}
	other := []string{"other_package"}
	changed := ViewChangedModels
	runCases(t, specs, []selCase{
		{"packages other", Options{Packages: other}, []string{"customers_4"}},
		{"no args: project package", Options{}, []string{"customers_1", "customers_2", "customers_3", "customers_5"}},
		{"changed_models", Options{ViewMode: changed}, []string{"customers_2", "customers_3", "customers_5"}},
		{"changed_models other package", Options{ViewMode: changed, Packages: other}, []string{"customers_4"}},
		{"changed_models other package exclude", Options{ViewMode: changed, Packages: other, Exclude: "customers_4"}, nil},
		{"select other package changed", Options{Select: "customers_1+", ViewMode: changed, Packages: other}, []string{"customers_4"}},
		{"changed +customers_5", Options{Select: "+customers_5", ViewMode: changed}, []string{"customers_2", "customers_3", "customers_5"}},
		{"all +customers_5", Options{Select: "+customers_5", ViewMode: ViewAll}, []string{"customers_1", "customers_2", "customers_3", "customers_5"}},
		{"+customers_5", sel("+customers_5"), []string{"customers_1", "customers_2", "customers_3", "customers_5"}},
		{"empty packages means every package", Options{Packages: []string{}}, []string{"customers_1", "customers_2", "customers_3", "customers_4", "customers_5"}},
		{"package wildcard", Options{Packages: []string{"*"}, Select: "customers_4"}, []string{"customers_4"}},
		{"package this", Options{Packages: []string{"this"}, Select: "package:this"}, []string{"customers_1", "customers_2", "customers_3", "customers_5"}},
	})
}

// Row-count selector test: model_1 modified, model_2 unchanged child.
func TestRecceRowCountSelector(t *testing.T) {
	runCases(t, []spec{
		{id: "model_1", base: "select 1", cur: "select 2"},
		{id: "model_2", base: "select 2", cur: "select 2", deps: []string{"model_1"}},
	}, []selCase{
		{"model_1", sel("model_1"), []string{"model_1"}},
		{"model_1+", sel("model_1+"), []string{"model_1", "model_2"}},
	})
}

// grammarProject is a richer project exercising every method.
func grammarProject() []spec {
	set := func(kv obj) func(obj) { return func(n obj) { maps.Copy(n, kv) } }
	cfg := func(kv obj) func(obj) {
		return func(n obj) {
			c := n["config"].(obj)
			maps.Copy(c, kv)
		}
	}
	return []spec{
		{id: "source.recce_test.raw.orders", typ: "source", base: "-", cur: "-", patch: set(obj{"name": "orders", "source_name": "raw", "fqn": []string{"recce_test", "raw", "orders"}, "original_file_path": "models/staging/sources.yml", "tags": []string{"raw"}})},
		{id: "source.recce_test.raw.customers", typ: "source", base: "-", cur: "-", patch: set(obj{"name": "customers", "source_name": "raw", "fqn": []string{"recce_test", "raw", "customers"}, "original_file_path": "models/staging/sources.yml", "schema": "raw"})},
		{id: "source.recce_test.stripe.payments", typ: "source", base: "-", cur: "-", patch: set(obj{"name": "payments", "source_name": "stripe", "fqn": []string{"recce_test", "stripe", "payments"}, "original_file_path": "models/staging/stripe.yml"})},
		{id: "seed.recce_test.country_codes", typ: "seed", base: "a,b", cur: "a,b", patch: set(obj{"name": "country_codes", "fqn": []string{"recce_test", "country_codes"}, "original_file_path": "seeds/country_codes.csv"})},
		{id: "model.recce_test.stg_orders", base: "select 1", cur: "select 1", deps: []string{"source.recce_test.raw.orders"},
			patch: func(n obj) {
				set(obj{"name": "stg_orders", "fqn": []string{"recce_test", "staging", "stg_orders"}, "original_file_path": "models/staging/stg_orders.sql"})(n)
				cfg(obj{"materialized": "view", "meta": obj{"owner": obj{"team": "core"}}, "tags": []string{"staging", "daily"}})(n)
				n["tags"] = []string{"staging", "daily"}
			}},
		{id: "model.recce_test.stg_customers", base: "select 1", cur: "select 1", deps: []string{"source.recce_test.raw.customers"},
			patch: func(n obj) {
				set(obj{"name": "stg_customers", "fqn": []string{"recce_test", "staging", "stg_customers"}, "original_file_path": "models/staging/stg_customers.sql"})(n)
				cfg(obj{"materialized": "view", "persist_docs": obj{"relation": true}, "unique_key": []string{"id", "email"}})(n)
			}},
		{id: "model.recce_test.stg_payments", base: "select 1", cur: "select 1", deps: []string{"source.recce_test.stripe.payments"},
			patch: func(n obj) {
				set(obj{"name": "stg_payments", "fqn": []string{"recce_test", "staging", "stg_payments"}, "original_file_path": "models/staging/stg_payments.py"})(n)
				cfg(obj{"materialized": "table", "full_refresh": false, "batch_size": 500.0})(n)
			}},
		{id: "model.recce_test.orders", base: "select 1", cur: "select 2", deps: []string{"model.recce_test.stg_orders", "model.recce_test.stg_payments", "seed.recce_test.country_codes"},
			patch: set(obj{"name": "orders", "fqn": []string{"recce_test", "marts", "orders"}, "original_file_path": "models/marts/orders.sql"})},
		{id: "model.recce_test.customers", base: "select 1", cur: "select 1", deps: []string{"model.recce_test.stg_customers", "model.recce_test.orders"},
			patch: func(n obj) {
				set(obj{"name": "customers", "fqn": []string{"recce_test", "marts", "customers"}, "original_file_path": "models/marts/customers.sql"})(n)
				cfg(obj{"group": "finance", "access": "public", "contract": obj{"enforced": true}})(n)
			}},
		{id: "model.recce_test.dim_customers.v2", base: "select 1", cur: "select 1", deps: []string{"model.recce_test.customers"},
			patch: set(obj{"name": "dim_customers", "version": 2, "fqn": []string{"recce_test", "marts", "dim_customers", "v2"}, "original_file_path": "models/marts/dim_customers_v2.sql"})},
		{id: "model.dbt_utils.util_model", pkg: "dbt_utils", base: "select 1", cur: "select 1",
			patch: set(obj{"name": "util_model", "fqn": []string{"dbt_utils", "util_model"}, "original_file_path": "models/util_model.sql"})},
		{id: "test.recce_test.unique_orders_id.abc", typ: "test", base: "{{ test_unique() }}", cur: "{{ test_unique() }}", deps: []string{"model.recce_test.orders"},
			patch: func(n obj) {
				set(obj{"name": "unique_orders_id", "fqn": []string{"recce_test", "marts", "unique_orders_id"}, "original_file_path": "models/marts/schema.yml", "test_metadata": obj{"name": "unique", "kwargs": obj{}}})(n)
				cfg(obj{"severity": "ERROR", "materialized": "test"})(n)
			}},
		{id: "test.recce_test.assert_positive", typ: "test", base: "select 1", cur: "select 1", deps: []string{"model.recce_test.orders"},
			patch: set(obj{"name": "assert_positive", "fqn": []string{"recce_test", "assert_positive"}, "original_file_path": "tests/assert_positive.sql"})},
		{id: "unit_test.recce_test.orders.test_orders", typ: "unit_test", base: "-", cur: "-", deps: []string{"model.recce_test.orders"},
			patch: set(obj{"name": "test_orders", "fqn": []string{"recce_test", "marts", "orders", "test_orders"}, "original_file_path": "models/marts/unit.yml", "checksum": nil})},
		{id: "exposure.recce_test.weekly_dashboard", typ: "exposure", base: "-", cur: "-", deps: []string{"model.recce_test.customers"},
			patch: set(obj{"name": "weekly_dashboard", "fqn": []string{"recce_test", "weekly_dashboard"}, "original_file_path": "models/exposures.yml"})},
		{id: "semantic_model.recce_test.sm_orders", typ: "semantic_model", base: "-", cur: "-", deps: []string{"model.recce_test.orders"},
			patch: set(obj{"name": "sm_orders", "fqn": []string{"recce_test", "sm_orders"}, "original_file_path": "models/sem.yml"})},
		{id: "metric.recce_test.revenue", typ: "metric", base: "-", cur: "-", deps: []string{"semantic_model.recce_test.sm_orders"},
			patch: set(obj{"name": "revenue", "fqn": []string{"recce_test", "revenue"}, "original_file_path": "models/sem.yml"})},
		{id: "saved_query.recce_test.q_revenue", typ: "saved_query", base: "-", cur: "-", deps: []string{"metric.recce_test.revenue"},
			patch: set(obj{"name": "q_revenue", "fqn": []string{"recce_test", "q_revenue"}, "original_file_path": "models/sem.yml"})},
	}
}

func TestGrammar(t *testing.T) {
	const (
		src       = "source.recce_test.raw.orders"
		srcC      = "source.recce_test.raw.customers"
		srcP      = "source.recce_test.stripe.payments"
		seed      = "seed.recce_test.country_codes"
		stgO      = "model.recce_test.stg_orders"
		stgC      = "model.recce_test.stg_customers"
		stgP      = "model.recce_test.stg_payments"
		orders    = "model.recce_test.orders"
		customers = "model.recce_test.customers"
		dim       = "model.recce_test.dim_customers.v2"
		util      = "model.dbt_utils.util_model"
		uniq      = "test.recce_test.unique_orders_id.abc"
		sing      = "test.recce_test.assert_positive"
		unit      = "unit_test.recce_test.orders.test_orders"
		expo      = "exposure.recce_test.weekly_dashboard"
		sm        = "semantic_model.recce_test.sm_orders"
		metric    = "metric.recce_test.revenue"
		sq        = "saved_query.recce_test.q_revenue"
	)
	all := []string{"*"}
	runCases(t, grammarProject(), []selCase{
		{"exact name", sel("orders"), []string{orders}},
		{"name wildcard", sel("stg_*"), []string{stgC, stgO, stgP}},
		{"name ? and class", sel("stg_[co]?????ers stg_[!c]rders"), []string{stgC, stgO}},
		{"fqn folder prefix (unscoped)", sel("staging"), []string{stgC, stgO, stgP}},
		{"fqn package-qualified", sel("recce_test.marts.orders"), []string{orders}},
		{"fqn: wildcard", sel("fqn:recce_test.marts.*"), []string{customers, dim, orders}},
		{"fqn: wildcard does not reach into folders", sel("fqn:stg_*"), nil},
		{"fqn: package prefix", Options{Select: "fqn:dbt_utils", Packages: all}, []string{util}},
		{"versioned by name", sel("dim_customers"), []string{dim}},
		{"versioned name_v2", sel("dim_customers_v2"), []string{dim}},
		{"versioned name.v2", sel("dim_customers.v2"), []string{dim}},
		{"path directory", sel("path:models/staging"), []string{srcC, src, srcP, stgC, stgO, stgP}},
		{"path trailing slash unqualified", sel("models/staging/"), []string{srcC, src, srcP, stgC, stgO, stgP}},
		{"path glob", sel("path:models/staging/*.sql"), []string{stgC, stgO}},
		{"path **", sel("path:models/**/stg_p*"), []string{stgP}},
		{"path file", sel("models/marts/orders.sql"), []string{orders}},
		{"file by name", sel("stg_payments.py"), []string{stgP}},
		{"file: stem", sel("file:country_codes"), []string{seed}},
		{"file: glob", sel("file:*.csv"), []string{seed}},
		{"tag wildcard", sel("tag:dai*"), []string{stgO}},
		{"tag on source", sel("tag:raw"), []string{src}},
		{"config dotted key", sel("config.meta.owner.team:core"), []string{stgO}},
		{"config list contains", sel("config.unique_key:email"), []string{stgC}},
		{"config boolean", sel("config.full_refresh:false config.persist_docs.relation:TRUE"), []string{stgC, stgP}},
		{"config number", sel("config.batch_size:500"), []string{stgP}},
		{"config contract", sel("config.contract.enforced:true"), []string{customers}},
		{"config severity case-insensitive", sel("resource_type:test,config.severity:error"), []string{uniq}},
		{"group", sel("group:fin*"), []string{customers}},
		{"access", sel("access:public"), []string{customers}},
		{"resource_type:seed", sel("resource_type:seed"), []string{seed}},
		{"resource_type:source", sel("resource_type:source"), []string{srcC, src, srcP}},
		{"package:", Options{Select: "package:dbt_*", Packages: all}, []string{util}},
		{"default package filter hides other packages", sel("util_model"), nil},
		{"source:name", sel("source:raw"), []string{srcC, src}},
		{"source:name.table", sel("source:raw.orders"), []string{src}},
		{"source:pkg.name.table", sel("source:recce_test.*.p*"), []string{srcP}},
		{"source:x+", sel("source:raw.orders+"), []string{src, customers, dim, expo, metric, orders, sq, sm, stgO}},
		{"exposure", sel("exposure:weekly_dashboard"), []string{expo}},
		{"+exposure", sel("+exposure:recce_test.weekly_dashboard"), []string{srcC, src, srcP, seed, customers, expo, orders, stgC, stgO, stgP}},
		{"metric", sel("metric:rev*"), []string{metric}},
		{"semantic_model", sel("semantic_model:sm_orders"), []string{sm}},
		{"saved_query", sel("saved_query:q_revenue"), []string{sq}},
		{"tests dropped by default", sel("orders+"), []string{customers, dim, expo, metric, orders, sq, sm}},
		{"resource_type:test keeps tests", sel("resource_type:test"), []string{sing, uniq}},
		{"test_type:generic", sel("test_type:generic"), []string{uniq}},
		{"test_type:singular", sel("test_type:singular"), []string{sing}},
		{"test_type:data", sel("test_type:data"), []string{sing, uniq}},
		{"test_type:unit", sel("test_type:unit"), []string{unit}},
		{"test_name", sel("test_name:uniq*"), []string{uniq}},
		{"test_name unit", sel("test_name:test_orders"), []string{unit}},
		{"tests kept alongside other terms", sel("resource_type:test orders"), []string{orders, sing, uniq}},
		{"1+ parents depth", sel("1+orders"), []string{seed, orders, stgO, stgP}},
		{"+ parents all", sel("+orders"), []string{src, srcP, seed, orders, stgO, stgP}},
		{"children depth 1", sel("orders+1"), []string{customers, orders, sm}},
		{"n+x+n", sel("1+customers+1"), []string{customers, dim, expo, orders, stgC}},
		{"@", sel("@stg_customers"), []string{srcC, src, srcP, seed, customers, dim, expo, orders, stgC, stgO, stgP}},
		{"0+ is the node only", sel("0+orders+0"), []string{orders}},
		{"state:modified", sel("state:modified"), []string{orders}},
		{"state:modified.body+1", sel("state:modified.body+1"), []string{customers, orders, sm}},
		{"state:modified.configs", sel("state:modified.configs"), nil},
		{"state:unmodified,tag:staging", sel("state:unmodified,tag:staging"), []string{stgO}},
		{"intersection after graph ops", sel("+customers,stg_*"), []string{stgC, stgO, stgP}},
		{"exclude with graph op", Options{Select: "+orders", Exclude: "source:*+1"}, []string{seed, orders}},
		{"--exclude inside select", sel("+orders --exclude source:* resource_type:seed"), []string{orders, stgO, stgP}},
		{"unknown name selects nothing", sel("nope"), nil},
	})
}

func TestSelectErrors(t *testing.T) {
	g, st := project(t, grammarProject())
	cases := []struct {
		opts Options
		want string // substring of the error
	}{
		{sel("bogus:x"), `unknown selector method "bogus"`},
		{sel("bogus:x"), "valid methods: fqn, path"},
		{sel("state:changed"), `unknown state "changed"`},
		{sel("state:changed"), "modified.body"},
		{sel("@orders+"), `"@orders+"`},
		{sel("tag:"), `"tag:" has no value`},
		{sel("a,,b"), `empty term in "a,,b"`},
		{sel("config:table"), "needs a key"},
		{sel("tag.x:y"), "only the config method"},
		{sel("resource_type:table"), `unknown resource_type "table"`},
		{sel("test_type:weird"), `unknown test_type "weird"`},
		{sel("source:a.b.c.d"), "package.source_name.table_name"},
		{sel("exposure:a.b.c"), "name or package.name"},
		{Options{Exclude: "+"}, `exclude: invalid node selector: "+" has no value`},
		{Options{ViewMode: "changed"}, `unknown view_mode "changed"`},
		{sel("orders --full-refresh"), `unexpected flag "--full-refresh"`},
		{sel("99999999999999999999+orders"), "not a small number"},
	}
	for _, c := range cases {
		_, err := Select(g, st, "recce_test", c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Select(%+v) error = %v, want it to contain %q", c.opts, err, c.want)
			continue
		}
		if c.opts.ViewMode == "" && !errors.Is(err, ErrInvalid) {
			t.Errorf("Select(%+v) error %v does not wrap ErrInvalid", c.opts, err)
		}
	}
}

func TestParse(t *testing.T) {
	e, err := Parse("  2+state:modified.body+3,tag:a  @x config.meta.k:v ")
	if err != nil {
		t.Fatal(err)
	}
	want := Expr{
		{
			{Raw: "2+state:modified.body+3", Method: "state", Value: "modified.body", Parents: true, ParentsDepth: 2, Children: true, ChildrenDepth: 3},
			{Raw: "tag:a", Method: "tag", Value: "a", ParentsDepth: Unlimited, ChildrenDepth: Unlimited},
		},
		{{Raw: "@x", Method: "name", Value: "x", ChildrensParents: true, ParentsDepth: Unlimited, ChildrenDepth: Unlimited}},
		{{Raw: "config.meta.k:v", Method: "config", Args: []string{"meta", "k"}, Value: "v", ParentsDepth: Unlimited, ChildrenDepth: Unlimited}},
	}
	if len(e) != len(want) {
		t.Fatalf("Parse = %+v", e)
	}
	for i := range want {
		for j := range want[i] {
			g, w := e[i][j], want[i][j]
			if g.Raw != w.Raw || g.Method != w.Method || g.Value != w.Value || !slices.Equal(g.Args, w.Args) ||
				g.ChildrensParents != w.ChildrensParents || g.Parents != w.Parents || g.ParentsDepth != w.ParentsDepth ||
				g.Children != w.Children || g.ChildrenDepth != w.ChildrenDepth {
				t.Errorf("term %d.%d = %+v, want %+v", i, j, g, w)
			}
		}
	}
}

func TestFnmatch(t *testing.T) {
	cases := []struct {
		name, pat string
		want      bool
	}{
		{"stg_orders", "stg_*", true},
		{"a.b.c", "a*c", true},
		{"abc", "a?c", true},
		{"abc", "a[a-c]c", true},
		{"abc", "a[!b]c", false},
		{"a[c", "a[c", true},
		{"a]c", "a[]]c", true},
		{"", "*", true},
		{"x", "", false},
		{"héllo", "h?llo", true},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "*a*a*a*a*a*a*a*a*c", false},
	}
	for _, c := range cases {
		if got := fnmatch(c.name, c.pat); got != c.want {
			t.Errorf("fnmatch(%q, %q) = %v, want %v", c.name, c.pat, got, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"state:modified+", "1+a+2,tag:x", "@x", "config.a.b:c", "source:a.b.c", "a --exclude b", "path:models/**/x", "[", "+", "@+x+"} {
		f.Add(s)
	}
	g, st := project(f, grammarProject())
	s := New(g, st, "recce_test")
	f.Fuzz(func(t *testing.T, in string) {
		e, err := Parse(in)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrInvalid", in, err)
			}
			return
		}
		for _, inter := range e {
			for _, c := range inter {
				if c.Value == "" || c.Method == "" {
					t.Fatalf("Parse(%q) produced an empty term %+v", in, c)
				}
			}
		}
		got, err := s.Select(Options{Select: in, Exclude: in})
		if err != nil {
			return // e.g. "--exclude" splitting yields an invalid exclude
		}
		if !slices.IsSorted(got) {
			t.Fatalf("unsorted result %v", got)
		}
	})
}

func TestNilGraph(t *testing.T) {
	if _, err := Select(nil, nil, "", Options{}); err == nil {
		t.Error("Select with a nil graph: no error")
	}
	got, err := Select(dbt.NewGraph(nil, nil), nil, "", Options{Select: "state:modified+"})
	if err != nil || len(got) != 0 {
		t.Errorf("empty graph: %v %v", got, err)
	}
}

// TestDefaultPackagesWhenRootOwnsNothing: a project whose models all live
// in installed packages (issue #26: lineage_diff showed 0 changed, get_cll
// 281) selects every package by default; a root project with models keeps
// Recce's root-only default, and what that scope hides is listed.
func TestDefaultPackagesWhenRootOwnsNothing(t *testing.T) {
	specs := []spec{
		{id: "a", base: "select 1", cur: "select 2", pkg: "core"},
		{id: "b", base: "select 2", cur: "select 2", deps: []string{"a"}, pkg: "marts"},
		{id: "c", base: "select 3", cur: "select 33", deps: []string{"b"}, pkg: "marts"},
	}
	g, st := project(t, specs)
	s := New(g, st, "recce_test")
	if got := s.DefaultPackages(); got != nil {
		t.Errorf("DefaultPackages = %v, want nil (every package)", got)
	}
	got, err := s.Select(Options{ViewMode: ViewChangedModels})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("changed_models = %v, want %v", got, want)
	}
	if hidden := s.OutOfScopeChanges(nil); len(hidden) != 0 {
		t.Errorf("hidden %v, want none", hidden)
	}
	if hidden := s.OutOfScopeChanges([]string{"marts"}); !slices.Equal(hidden, []string{"a"}) {
		t.Errorf("hidden by packages [marts] = %v, want [a]", hidden)
	}

	g, st = project(t, append(specs, spec{id: "d", base: "select 4", cur: "select 4"}))
	s = New(g, st, "recce_test")
	if got := s.DefaultPackages(); !slices.Equal(got, []string{"recce_test"}) {
		t.Errorf("DefaultPackages = %v, want [recce_test]", got)
	}
	if hidden := s.OutOfScopeChanges(nil); !slices.Equal(hidden, []string{"a", "c"}) {
		t.Errorf("hidden = %v, want [a c]", hidden)
	}
}
