package dbt

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/ripple-data/ripple/internal/testfixtures"
)

// obj is a JSON object literal.
type obj = map[string]any

// testManifest builds a v12 manifest for project "pkg" from sections.
func testManifest(t testing.TB, sections obj) *Manifest {
	t.Helper()
	m := obj{"metadata": obj{
		"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json",
		"project_name":       "pkg", "adapter_type": "duckdb",
	}}
	maps.Copy(m, sections)
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	man, err := DecodeManifest(data, "test manifest")
	if err != nil {
		t.Fatal(err)
	}
	return man
}

// node returns a node of the given type named name in package pkg with a
// fixed body; extra keys override the defaults.
func node(typ, name string, extra obj) obj {
	n := obj{
		"unique_id":          typ + ".pkg." + name,
		"name":               name,
		"resource_type":      typ,
		"package_name":       "pkg",
		"path":               name + ".sql",
		"original_file_path": "models/" + name + ".sql",
		"fqn":                []string{"pkg", name},
		"schema":             "main",
		"alias":              name,
		"raw_code":           "select 1 as id",
		"checksum":           obj{"name": "sha256", "checksum": "abc"},
		"config":             obj{"materialized": "table", "enabled": true},
		"unrendered_config":  obj{"materialized": "table"},
		"depends_on":         obj{"macros": []string{}, "nodes": []string{}},
	}
	maps.Copy(n, extra)
	return n
}

func section(nodes ...obj) obj {
	out := obj{}
	for _, n := range nodes {
		out[n["unique_id"].(string)] = n
	}
	return out
}

func TestCompareState(t *testing.T) {
	macros := func(bSQL string) obj {
		return obj{
			"macro.pkg.outer": obj{"unique_id": "macro.pkg.outer", "name": "outer", "package_name": "pkg", "macro_sql": "{{ inner() }}", "depends_on": obj{"macros": []string{"macro.pkg.inner"}}},
			"macro.pkg.inner": obj{"unique_id": "macro.pkg.inner", "name": "inner", "package_name": "pkg", "macro_sql": bSQL, "depends_on": obj{"macros": []string{}}},
			"macro.pkg.other": obj{"unique_id": "macro.pkg.other", "name": "other", "package_name": "pkg", "macro_sql": "x", "depends_on": obj{"macros": []string{}}},
		}
	}
	persist := obj{"materialized": "table", "persist_docs": obj{"relation": true, "columns": true}}
	tests := []struct {
		name      string
		base, cur obj
		want      map[string]NodeState
	}{
		{
			name: "identical",
			base: obj{"nodes": section(node("model", "a", nil))},
			cur:  obj{"nodes": section(node("model", "a", nil))},
			want: map[string]NodeState{},
		},
		{
			name: "body",
			base: obj{"nodes": section(node("model", "a", nil))},
			cur:  obj{"nodes": section(node("model", "a", obj{"raw_code": "select 2 as id"}))},
			want: map[string]NodeState{"model.pkg.a": {ChangeStatus: "modified", Modifications: []Modification{ModBody}}},
		},
		{
			name: "seed body is the file checksum, not raw_code",
			base: obj{"nodes": section(node("seed", "s", obj{"raw_code": ""}), node("seed", "t", nil))},
			cur: obj{"nodes": section(node("seed", "s", obj{"raw_code": "", "checksum": obj{"name": "sha256", "checksum": "def"}}),
				node("seed", "t", obj{"raw_code": "different"}))},
			want: map[string]NodeState{"seed.pkg.s": {ChangeStatus: "modified", Modifications: []Modification{ModBody}}},
		},
		{
			name: "configs: unrendered materialized",
			base: obj{"nodes": section(node("model", "a", nil))},
			cur: obj{"nodes": section(node("model", "a", obj{
				"unrendered_config": obj{"materialized": "view"},
				"config":            obj{"materialized": "view"},
			}))},
			want: map[string]NodeState{"model.pkg.a": {ChangeStatus: "modified", Modifications: []Modification{ModConfigs}}},
		},
		{
			name: "configs: key order, tags and group are not changes; rendered config is ignored",
			base: obj{"nodes": section(node("model", "a", obj{"unrendered_config": obj{"materialized": "table", "meta": obj{"x": 1, "y": 2}}}))},
			cur: obj{"nodes": section(node("model", "a", obj{
				"unrendered_config": json.RawMessage(`{"meta":{"y":2.0,"x":1},"materialized":"table","tags":["t"],"group":"g"}`),
				"config":            obj{"materialized": "table", "enabled": true, "target_schema": "other"},
			}))},
			want: map[string]NodeState{},
		},
		{
			name: "configs: a key present on one side only",
			base: obj{"nodes": section(node("model", "a", nil))},
			cur:  obj{"nodes": section(node("model", "a", obj{"unrendered_config": obj{"materialized": "table", "full_refresh": nil}}))},
			want: map[string]NodeState{"model.pkg.a": {ChangeStatus: "modified", Modifications: []Modification{ModConfigs}}},
		},
		{
			name: "relation: configured schema (not a config change)",
			base: obj{"nodes": section(node("model", "a", nil))},
			cur:  obj{"nodes": section(node("model", "a", obj{"unrendered_config": obj{"materialized": "table", "schema": "marts"}}))},
			want: map[string]NodeState{"model.pkg.a": {ChangeStatus: "modified", Modifications: []Modification{ModRelation}}},
		},
		{
			name: "relation: null equals missing",
			base: obj{"nodes": section(node("model", "a", obj{"unrendered_config": obj{"materialized": "table", "alias": nil}}))},
			cur:  obj{"nodes": section(node("model", "a", nil))},
			want: map[string]NodeState{},
		},
		{
			name: "different resolved schema is not a relation change",
			base: obj{"nodes": section(node("model", "a", obj{"schema": "prod", "database": "db1", "relation_name": `"db1"."prod"."a"`}))},
			cur:  obj{"nodes": section(node("model", "a", obj{"schema": "pr_42", "database": "db2", "relation_name": `"db2"."pr_42"."a"`}))},
			want: map[string]NodeState{},
		},
		{
			name: "persisted descriptions: relation docs",
			base: obj{"nodes": section(node("model", "a", obj{"config": persist, "description": "old"}))},
			cur:  obj{"nodes": section(node("model", "a", obj{"config": persist, "description": "new"}))},
			want: map[string]NodeState{"model.pkg.a": {ChangeStatus: "modified", Modifications: []Modification{ModPersistedDescriptions}}},
		},
		{
			name: "persisted descriptions: column docs",
			base: obj{"nodes": section(node("model", "a", obj{"config": persist, "columns": obj{"id": obj{"name": "id", "description": "old"}}}))},
			cur:  obj{"nodes": section(node("model", "a", obj{"config": persist, "columns": obj{"id": obj{"name": "id", "description": "new"}}}))},
			want: map[string]NodeState{"model.pkg.a": {ChangeStatus: "modified", Modifications: []Modification{ModPersistedDescriptions}}},
		},
		{
			name: "descriptions without persist_docs are not changes",
			base: obj{"nodes": section(node("model", "a", obj{"description": "old", "columns": obj{"id": obj{"name": "id", "description": "old"}}}))},
			cur:  obj{"nodes": section(node("model", "a", obj{"description": "new", "columns": obj{"id": obj{"name": "id", "description": "new"}}}))},
			want: map[string]NodeState{},
		},
		{
			name: "macros: a macro reached through another macro changed",
			base: obj{"macros": macros("1"), "nodes": section(node("model", "a", obj{"depends_on": obj{"macros": []string{"macro.pkg.outer"}}}), node("model", "b", obj{"depends_on": obj{"macros": []string{"macro.pkg.other"}}}))},
			cur:  obj{"macros": macros("2"), "nodes": section(node("model", "a", obj{"depends_on": obj{"macros": []string{"macro.pkg.outer"}}}), node("model", "b", obj{"depends_on": obj{"macros": []string{"macro.pkg.other"}}}))},
			want: map[string]NodeState{"model.pkg.a": {ChangeStatus: "modified", Modifications: []Modification{ModMacros}}},
		},
		{
			name: "contract: enforcement turned on",
			base: obj{"nodes": section(node("model", "a", nil))},
			cur:  obj{"nodes": section(node("model", "a", obj{"contract": obj{"enforced": true, "checksum": "c1"}}))},
			want: map[string]NodeState{"model.pkg.a": {ChangeStatus: "modified", Modifications: []Modification{ModContract}}},
		},
		{
			name: "contract: enforced column types changed",
			base: obj{"nodes": section(node("model", "a", obj{"contract": obj{"enforced": true, "checksum": "c1"}}))},
			cur:  obj{"nodes": section(node("model", "a", obj{"contract": obj{"enforced": true, "checksum": "c2"}}))},
			want: map[string]NodeState{"model.pkg.a": {ChangeStatus: "modified", Modifications: []Modification{ModContract}}},
		},
		{
			name: "contract: checksum of an unenforced contract is ignored",
			base: obj{"nodes": section(node("model", "a", obj{"contract": obj{"enforced": false, "checksum": "c1"}}))},
			cur:  obj{"nodes": section(node("model", "a", obj{"contract": obj{"enforced": false, "checksum": "c2"}}))},
			want: map[string]NodeState{},
		},
		{
			name: "fqn change is modified without a sub-selector",
			base: obj{"nodes": section(node("model", "a", nil))},
			cur:  obj{"nodes": section(node("model", "a", obj{"fqn": []string{"pkg", "marts", "a"}}))},
			want: map[string]NodeState{"model.pkg.a": {ChangeStatus: "modified"}},
		},
		{
			name: "added and removed",
			base: obj{"nodes": section(node("model", "gone", nil))},
			cur:  obj{"nodes": section(node("model", "new", nil))},
			want: map[string]NodeState{
				"model.pkg.gone": {ChangeStatus: "removed", Modifications: []Modification{ModBody}},
				"model.pkg.new":  {ChangeStatus: "added", Modifications: []Modification{ModBody, ModConfigs, ModContract, ModPersistedDescriptions, ModRelation}},
			},
		},
		{
			name: "disabled: disabled in current is removed, disabled on both sides is absent",
			base: obj{"nodes": section(node("model", "a", nil)), "disabled": obj{"model.pkg.b": []obj{node("model", "b", obj{"config": obj{"enabled": false}})}}},
			cur: obj{"disabled": obj{
				"model.pkg.a": []obj{node("model", "a", obj{"config": obj{"enabled": false}})},
				"model.pkg.b": []obj{node("model", "b", obj{"config": obj{"enabled": false}, "raw_code": "changed"})},
			}},
			want: map[string]NodeState{"model.pkg.a": {ChangeStatus: "removed", Modifications: []Modification{ModBody}}},
		},
		{
			name: "sources: resolved relation is compared, description is not",
			base: obj{"sources": section(
				node("source", "raw.orders", obj{"unique_id": "source.pkg.raw.orders", "source_name": "raw", "name": "orders", "schema": "raw"}),
				node("source", "raw.customers", obj{"unique_id": "source.pkg.raw.customers", "source_name": "raw", "name": "customers", "schema": "raw", "description": "x"}),
			)},
			cur: obj{"sources": section(
				node("source", "raw.orders", obj{"unique_id": "source.pkg.raw.orders", "source_name": "raw", "name": "orders", "schema": "raw_v2"}),
				node("source", "raw.customers", obj{"unique_id": "source.pkg.raw.customers", "source_name": "raw", "name": "customers", "schema": "raw", "description": "y"}),
				node("source", "raw.items", obj{"unique_id": "source.pkg.raw.items", "source_name": "raw", "name": "items"}),
			)},
			want: map[string]NodeState{
				"source.pkg.raw.orders": {ChangeStatus: "modified", Modifications: []Modification{ModRelation}},
				"source.pkg.raw.items":  {ChangeStatus: "added", Modifications: []Modification{ModConfigs, ModRelation}},
			},
		},
		{
			name: "exposures, metrics, semantic models and saved queries",
			base: obj{
				"exposures":       section(node("exposure", "dash", obj{"description": "a"})),
				"metrics":         section(node("metric", "revenue", obj{"unrendered_config": obj{}})),
				"semantic_models": section(node("semantic_model", "orders", obj{"depends_on": obj{"nodes": []string{"model.pkg.a"}}})),
				"saved_queries":   section(node("saved_query", "q", nil)),
			},
			cur: obj{
				"exposures":       section(node("exposure", "dash", obj{"description": "b"})),
				"metrics":         section(node("metric", "revenue", obj{"unrendered_config": obj{"meta": obj{"owner": "x"}}})),
				"semantic_models": section(node("semantic_model", "orders", obj{"depends_on": obj{"nodes": []string{"model.pkg.b"}}})),
			},
			want: map[string]NodeState{
				"exposure.pkg.dash":         {ChangeStatus: "modified"},
				"metric.pkg.revenue":        {ChangeStatus: "modified", Modifications: []Modification{ModConfigs}},
				"semantic_model.pkg.orders": {ChangeStatus: "modified"},
				"saved_query.pkg.q":         {ChangeStatus: "removed"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CompareState(testManifest(t, tt.base), testManifest(t, tt.cur))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CompareState:\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestCompareStateNilManifests(t *testing.T) {
	m := testManifest(t, obj{"nodes": section(node("model", "a", nil))})
	if got := CompareState(nil, m); got["model.pkg.a"].ChangeStatus != ChangeAdded || len(got) != 1 {
		t.Errorf("CompareState(nil, m) = %v", got)
	}
	if got := CompareState(m, nil); got["model.pkg.a"].ChangeStatus != ChangeRemoved || len(got) != 1 {
		t.Errorf("CompareState(m, nil) = %v", got)
	}
	if got := CompareState(m, m); len(got) != 0 {
		t.Errorf("CompareState(m, m) = %v", got)
	}
}

// RealPairs lists the fixture directories holding base/ and current/ builds.
func realPairs(t testing.TB) []string {
	t.Helper()
	realFixtures := testfixtures.RealRoot(t)
	var out []string
	for _, pat := range []string{"*/base", "*/*/base"} {
		bases, err := filepath.Glob(filepath.Join(realFixtures, pat))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bases {
			if st, err := os.Stat(filepath.Join(filepath.Dir(b), "current", ManifestFile)); err == nil && !st.IsDir() {
				out = append(out, filepath.Dir(b))
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestCompareStateRealFixtures(t *testing.T) {
	type want struct {
		status string
		mods   []Modification
	}
	expect := map[string]map[string]want{
		"mrkidbk_test_dbt_jaffle_shop": {
			"model.jaffle_shop.stg_payments": {"modified", []Modification{ModBody}},
		},
		"recce_tests_jaffle_shop_v12": {
			"model.jaffle_shop.customers":             {"modified", []Modification{ModBody}},
			"model.jaffle_shop.int_customer_orders":   {"added", []Modification{ModBody, ModConfigs, ModContract, ModPersistedDescriptions, ModRelation}},
			"model.jaffle_shop.int_customer_payments": {"added", []Modification{ModBody, ModConfigs, ModContract, ModPersistedDescriptions, ModRelation}},
		},
		"recce_tests_state_v11": {
			"model.jaffle_shop.customers": {"modified", []Modification{ModBody}},
		},
		"summer_camp_recce_jaffle_shop": {
			"model.jaffle_shop.customer_order_pattern": {"added", []Modification{ModBody, ModConfigs, ModContract, ModPersistedDescriptions, ModRelation}},
			"model.jaffle_shop.customer_order_patter":  {"removed", []Modification{ModBody}},
			"model.jaffle_shop.orders":                 {"modified", []Modification{ModBody}},
		},
		// Base lives in schema prod and current in dev: only the real
		// incremental-config and code changes show up.
		"recce_super_demo/pr1-incremental-filter": {
			"model.super_recce_training.orders": {"modified", []Modification{ModBody, ModConfigs}},
		},
		"recce_super_demo/pr2-model-rename": {
			"model.super_recce_training.staging_orders":  {"added", []Modification{ModBody, ModConfigs, ModContract, ModPersistedDescriptions, ModRelation}},
			"model.super_recce_training.stg_orders":      {"removed", []Modification{ModBody}},
			"model.super_recce_training.customer_orders": {"modified", []Modification{ModBody}},
			"model.super_recce_training.orders":          {"modified", []Modification{ModBody, ModConfigs}},
		},
		"recce_super_demo/pr3-timestamp-logic": {
			"model.super_recce_training.customer_orders":                 {"modified", []Modification{ModBody}},
			"model.super_recce_training.stg_orders":                      {"modified", []Modification{ModBody}},
			"model.super_recce_training.orders":                          {"modified", []Modification{ModBody, ModConfigs}},
			"analysis.super_recce_training.validate_utc_date_conversion": {"added", []Modification{ModBody, ModConfigs, ModContract, ModPersistedDescriptions, ModRelation}},
		},
	}
	seen := map[string]bool{}
	for _, dir := range realPairs(t) {
		rel, _ := filepath.Rel(testfixtures.RealRoot(t), dir)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			ctx := context.Background()
			base, err := LoadEnv(ctx, filepath.Join(dir, "base"), "base", "dbt docs generate")
			if err != nil {
				t.Fatal(err)
			}
			cur, err := LoadEnv(ctx, filepath.Join(dir, "current"), "current", "dbt docs generate")
			if err != nil {
				t.Fatal(err)
			}
			got := CompareState(base.Manifest, cur.Manifest)
			// Sanity on every pair: statuses agree with presence, mods are sorted.
			for id, s := range got {
				_, inB := base.Manifest.Node(id)
				_, inC := cur.Manifest.Node(id)
				switch {
				case s.ChangeStatus == ChangeAdded && (inB || !inC),
					s.ChangeStatus == ChangeRemoved && (!inB || inC),
					s.ChangeStatus == ChangeModified && (!inB || !inC):
					t.Errorf("%s: status %s but in base=%v current=%v", id, s.ChangeStatus, inB, inC)
				}
				if !slices.IsSorted(s.Modifications) {
					t.Errorf("%s: modifications not sorted: %v", id, s.Modifications)
				}
			}
			if self := CompareState(cur.Manifest, cur.Manifest); len(self) != 0 {
				t.Errorf("comparing current with itself: %v", self)
			}
			w, ok := expect[rel]
			if !ok {
				return
			}
			seen[rel] = true
			for id, s := range got {
				if _, ok := w[id]; ok {
					continue
				}
				// Ad-hoc `dbt compile --inline` nodes come and go between builds.
				n, _ := cur.Manifest.Node(id)
				if n == nil {
					n, _ = base.Manifest.Node(id)
				}
				if n.ResourceType != SQLOperation {
					t.Errorf("unexpected change %s: %+v", id, s)
				}
			}
			for id, e := range w {
				s, ok := got[id]
				if !ok || s.ChangeStatus != e.status || !slices.Equal(s.Modifications, e.mods) {
					t.Errorf("%s: got %+v (present %v), want %s %v", id, s, ok, e.status, e.mods)
				}
			}
		})
	}
	if t.Failed() || t.Skipped() {
		return
	}
	for rel := range expect {
		if !seen[rel] {
			t.Errorf("fixture %s not found", rel)
		}
	}
}
