package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/cputime"
	"github.com/ripple-data/ripple/internal/dbt"
)

// writeWideProject writes a project whose staging model selects every one
// of n source columns by name, and a model selecting * from it.
func writeWideProject(tb testing.TB, dir string, n int) {
	tb.Helper()
	cols := make([]string, n)
	catCols := map[string]any{}
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d", i)
		catCols[cols[i]] = map[string]any{"name": cols[i], "type": "INTEGER", "index": i + 1}
	}
	const src = "source.wide.raw.events"
	model := func(name, sql string, deps ...string) map[string]any {
		return map[string]any{"unique_id": "model.wide." + name, "name": name, "resource_type": "model", "package_name": "wide",
			"path": name + ".sql", "original_file_path": "models/" + name + ".sql", "database": "db", "schema": "main", "alias": name,
			"relation_name": `"db"."main"."` + name + `"`, "language": "sql", "compiled_code": sql, "raw_code": sql,
			"checksum": map[string]any{"name": "sha256", "checksum": name}, "fqn": []string{"wide", name},
			"config": map[string]any{"materialized": "table", "enabled": true}, "depends_on": map[string]any{"nodes": deps}}
	}
	manifest := map[string]any{
		"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "adapter_type": "duckdb", "project_name": "wide"},
		"nodes": map[string]any{
			"model.wide.stg_wide":  model("stg_wide", "select\n    "+strings.Join(cols, ",\n    ")+"\nfrom \"db\".\"raw\".\"events\"", src),
			"model.wide.wide_mart": model("wide_mart", `select * from "db"."main"."stg_wide"`, "model.wide.stg_wide"),
		},
		"sources": map[string]any{src: map[string]any{"unique_id": src, "name": "events", "resource_type": "source", "package_name": "wide",
			"source_name": "raw", "database": "db", "schema": "raw", "identifier": "events", "relation_name": `"db"."raw"."events"`,
			"fqn": []string{"wide", "raw", "events"}}},
	}
	entry := func(id, schema, name string) map[string]any {
		return map[string]any{"unique_id": id, "metadata": map[string]any{"type": "BASE TABLE", "schema": schema, "name": name, "database": "db"}, "columns": catCols}
	}
	catalog := map[string]any{
		"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json"},
		"nodes": map[string]any{"model.wide.stg_wide": entry("model.wide.stg_wide", "main", "stg_wide"),
			"model.wide.wide_mart": entry("model.wide.wide_mart", "main", "wide_mart")},
		"sources": map[string]any{src: entry(src, "raw", "events")},
	}
	if err := os.MkdirAll(filepath.Join(dir, "target"), 0o755); err != nil {
		tb.Fatal(err)
	}
	for name, v := range map[string]any{"manifest.json": manifest, "catalog.json": catalog} {
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "target", name), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkGetCLLWide is get_cll on a model of 40,000 columns, the artifacts
// loaded and column lineage analysed afresh in every iteration, as a CLI
// call does (issue #19: at most 2 s; it was 13 s, quadratic in the columns).
func BenchmarkGetCLLWide(b *testing.B) {
	dir := b.TempDir()
	const n = 40_000
	writeWideProject(b, dir, n)
	op, _ := Default().Get("get_cll")
	args := json.RawMessage(`{"node_id": "stg_wide"}`)
	ctx := context.Background()
	c0 := cputime.Now()
	for b.Loop() {
		s := NewSession(Config{Paths: dbt.Paths{ProjectDir: dir}})
		out, err := op.CallJSON(ctx, s, args)
		if err != nil {
			b.Fatal(err)
		}
		// The source, the model and the model reading it: 3n columns, cut
		// at maxCLLColumns.
		if r := out.(*CLLResult); len(r.Columns) != maxCLLColumns || !r.Truncated || r.TotalColumns != 3*n {
			b.Fatalf("%d columns (truncated %v, total %d), want %d of %d", len(r.Columns), r.Truncated, r.TotalColumns, maxCLLColumns, 3*n)
		}
	}
	// CPU time per call (all cores): wall time depends on the machine's load.
	b.ReportMetric(float64((cputime.Now()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
}
