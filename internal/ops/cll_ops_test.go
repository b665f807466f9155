package ops

import (
	"errors"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
)

// TestGetCLLTruncatedTotals: a cut lineage says so and how big it was.
func TestGetCLLTruncatedTotals(t *testing.T) {
	dir := t.TempDir()
	const n = 2000
	writeWideProject(t, dir, n)
	s := NewSession(Config{Paths: dbt.Paths{ProjectDir: dir}})
	// The source, the model and the model reading it: 3n columns.
	r := callOp[CLLResult](t, s, "get_cll", map[string]any{"node_id": "stg_wide"})
	if len(r.Columns) != maxCLLColumns || !r.Truncated || r.TotalColumns != 3*n {
		t.Errorf("%d columns, truncated %v, total %d; want %d, true, %d", len(r.Columns), r.Truncated, r.TotalColumns, maxCLLColumns, 3*n)
	}
	// One column is not cut: no totals.
	r = callOp[CLLResult](t, s, "get_cll", map[string]any{"node_id": "stg_wide", "column": "C7"})
	if len(r.Columns) != 3 || r.Truncated || r.TotalColumns != 0 {
		t.Errorf("one column: %d columns, truncated %v, total %d", len(r.Columns), r.Truncated, r.TotalColumns)
	}
	if _, ok := r.Columns["model.wide.stg_wide_c7"]; !ok {
		t.Errorf("columns keep the model's spelling: %v", keys(r.Columns))
	}
}

// TestColumnTyposRefused: get_cll --column and lineage --focus node.column
// refuse a column the node does not have, naming the closest ones (#15).
func TestColumnTyposRefused(t *testing.T) {
	dir := t.TempDir()
	writeWideProject(t, dir, 30)
	s := NewSession(Config{Paths: dbt.Paths{ProjectDir: dir}})
	for _, tc := range []struct {
		op   string
		args map[string]any
		want string
	}{
		{"get_cll", map[string]any{"node_id": "stg_wide", "column": "c2o"},
			`not found: model.wide.stg_wide has no column "c2o"; did you mean "c2", "c20" or "c21"?`},
		{"get_cll", map[string]any{"node_id": "raw.events", "column": "x"},
			`not found: source.wide.raw.events has no column "x"; it has 30 columns, which get_node lists`},
		{"lineage", map[string]any{"focus": []string{"wide_mart.c2o"}, "level": "column"},
			`not found: model.wide.wide_mart has no column "c2o"; did you mean "c2", "c20" or "c21"?`},
	} {
		_, err := callOpErr[CLLResult](s, tc.op, tc.args)
		if err == nil || err.Error() != tc.want || !errors.Is(err, dbt.ErrNotFound) {
			t.Errorf("%s %v: %v, want %s", tc.op, tc.args, err, tc.want)
		}
	}
	// The right column in another case is not a typo.
	l := callOp[LineageResult](t, s, "lineage", map[string]any{"focus": []string{"wide_mart.C3"}, "level": "column", "direction": "upstream"})
	if got := strings.Join(l.Nodes, " "); got != "model.wide.stg_wide.c3 model.wide.wide_mart.C3 source.wide.raw.events.c3" {
		t.Errorf("lineage nodes: %s", got)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestLineageMermaid pins lineage format=mermaid, drawn by internal/mermaid.
func TestLineageMermaid(t *testing.T) {
	dir := t.TempDir()
	writeWideProject(t, dir, 3)
	s := NewSession(Config{Paths: dbt.Paths{ProjectDir: dir}})
	l := callOp[LineageResult](t, s, "lineage", map[string]any{"focus": []string{"wide_mart"}, "direction": "upstream", "format": "mermaid"})
	want := "graph LR\n" +
		"  n0[\"model.wide.stg_wide\"]\n" +
		"  n1[\"model.wide.wide_mart\"]\n" +
		"  n2[\"source.wide.raw.events\"]\n" +
		"  n0 --> n1\n" +
		"  n2 --> n0\n"
	if l.Mermaid != want {
		t.Errorf("mermaid:\n%s\nwant:\n%s", l.Mermaid, want)
	}
}

// TestLineageColumnFocusAtModelLevel: node.column at level model says to
// pass level column instead of "no node named".
func TestLineageColumnFocusAtModelLevel(t *testing.T) {
	dir := t.TempDir()
	writeWideProject(t, dir, 3)
	s := NewSession(Config{Paths: dbt.Paths{ProjectDir: dir}})
	_, err := callOpErr[LineageResult](s, "lineage", map[string]any{"focus": []string{"wide_mart.c1"}})
	want := `not found: "wide_mart.c1" is not a node; to trace column "c1" of model.wide.wide_mart pass level column`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
