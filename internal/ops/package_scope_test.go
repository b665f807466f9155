package ops

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/lineage"
)

// writePackagedProject writes base and current builds of a project named
// "shell" whose models live in the packages of pkgs (model name →
// package); every model's body changes between the builds.
func writePackagedProject(t *testing.T, dir string, pkgs map[string]string) {
	t.Helper()
	for target, body := range map[string]string{"target-base": "select 1 as id", "target": "select 2 as id"} {
		nodes := map[string]any{}
		for name, pkg := range pkgs {
			id := "model." + pkg + "." + name
			nodes[id] = map[string]any{"unique_id": id, "name": name, "resource_type": "model", "package_name": pkg,
				"path": name + ".sql", "original_file_path": "models/" + name + ".sql", "database": "db", "schema": "main", "alias": name,
				"relation_name": `"db"."main"."` + name + `"`, "language": "sql", "compiled_code": body, "raw_code": body,
				"checksum": map[string]any{"name": "sha256", "checksum": body}, "fqn": []string{pkg, name},
				"config": map[string]any{"materialized": "table", "enabled": true}, "depends_on": map[string]any{"nodes": []string{}}}
		}
		m := map[string]any{"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "adapter_type": "duckdb", "project_name": "shell"},
			"nodes": nodes}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, target, "manifest.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPackageScopeIsOneDefault (issue #26): lineage_diff and get_cll agree
// on the package scope, and lineage_diff says what its scope hid.
func TestPackageScopeIsOneDefault(t *testing.T) {
	changed := func(r *lineage.DiffResult) []string {
		var out []string
		id, st := r.Nodes.Index("id"), r.Nodes.Index("change_status")
		for _, row := range r.Nodes.Data {
			if row[st] != nil && row[st] != "" {
				out = append(out, row[id].(string))
			}
		}
		sort.Strings(out)
		return out
	}
	cllNodes := func(r *CLLResult) []string {
		var out []string
		for id := range r.Nodes {
			out = append(out, id)
		}
		sort.Strings(out)
		return out
	}

	// Every model in installed packages: both show all three.
	dir := t.TempDir()
	writePackagedProject(t, dir, map[string]string{"a": "core", "b": "marts", "c": "marts"})
	s := NewSession(Config{Paths: dbt.Paths{ProjectDir: dir}})
	d := callOp[lineage.DiffResult](t, s, "lineage_diff", map[string]any{})
	want := []string{"model.core.a", "model.marts.b", "model.marts.c"}
	if got := changed(d); !equalStrings(got, want) || d.Warning != "" {
		t.Errorf("lineage_diff changed %v (warning %q), want %v", got, d.Warning, want)
	}
	if got := cllNodes(callOp[CLLResult](t, s, "get_cll", map[string]any{})); !equalStrings(got, want) {
		t.Errorf("get_cll nodes %v, want %v", got, want)
	}
	d = callOp[lineage.DiffResult](t, s, "lineage_diff", map[string]any{"packages": []string{"marts"}})
	if got := changed(d); !equalStrings(got, want[1:]) ||
		d.Warning != "1 changed node(s) outside packages [marts] are not shown (first: model.core.a); pass packages: [] for every package, or name theirs." {
		t.Errorf("packages [marts]: changed %v, warning %q", got, d.Warning)
	}

	// A root project with a model of its own keeps Recce's root default,
	// in both operations, and lineage_diff names what it hid.
	dir = t.TempDir()
	writePackagedProject(t, dir, map[string]string{"a": "core", "b": "marts", "r": "shell"})
	s = NewSession(Config{Paths: dbt.Paths{ProjectDir: dir}})
	d = callOp[lineage.DiffResult](t, s, "lineage_diff", map[string]any{})
	if got := changed(d); !equalStrings(got, []string{"model.shell.r"}) ||
		d.Warning != "2 changed node(s) outside packages [shell] are not shown (first: model.core.a); pass packages: [] for every package, or name theirs." {
		t.Errorf("root default: changed %v, warning %q", got, d.Warning)
	}
	if got := cllNodes(callOp[CLLResult](t, s, "get_cll", map[string]any{})); !equalStrings(got, []string{"model.shell.r"}) {
		t.Errorf("get_cll nodes %v, want [model.shell.r]", got)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSQLLineageDialects: sql_lineage (as the MCP tool and the CLI call it)
// refuses a dialect Ripple has no record of, naming them all, and reads
// every one it lists, aliases too.
func TestSQLLineageDialects(t *testing.T) {
	s := NewSession(Config{Paths: dbt.Paths{ProjectDir: t.TempDir()}})
	_, err := callOpErr[SQLLineageResult](s, "sql_lineage", map[string]any{"dialect": "foo", "sql": "select 1 as a"})
	want := `Input validation error: unknown dialect "foo": Ripple reads generic, bigquery, databricks, duckdb, postgres, redshift, snowflake, spark, trino`
	if err == nil || err.Error() != want {
		t.Errorf("dialect foo: %v, want %s", err, want)
	}
	for _, d := range append(SQLDialects(), "pg", "hive", "POSTGRES") {
		r, err := callOpErr[SQLLineageResult](s, "sql_lineage", map[string]any{"dialect": d, "sql": "select 1 as a"})
		if err != nil || len(r.Columns) != 1 {
			t.Errorf("dialect %s: %v", d, err)
		}
	}
}
