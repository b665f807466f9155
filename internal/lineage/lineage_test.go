package lineage

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/synth"
	"github.com/ripple-data/ripple/internal/testfixtures"
)

func realPair(t testing.TB, name string) *dbt.Project {
	t.Helper()
	dir := testfixtures.Real(t, name)
	p, err := dbt.LoadProject(context.Background(), dbt.Paths{ProjectDir: dir, TargetPath: "current", TargetBasePath: "base"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func statusOf(d *DiffResult, id string) (status any, impacted bool, found bool) {
	for _, row := range d.Nodes.Data {
		if row[d.Nodes.Index("id")] == id {
			return row[d.Nodes.Index("change_status")], row[d.Nodes.Index("impacted")].(bool), true
		}
	}
	return nil, false, false
}

func TestRealPairs(t *testing.T) {
	cases := []struct {
		fixture string
		want    map[string]any // id → change_status (nil = unchanged)
		impact  map[string]bool
	}{
		{"mrkidbk_test_dbt_jaffle_shop",
			map[string]any{"model.jaffle_shop.stg_payments": "modified", "model.jaffle_shop.stg_orders": nil},
			map[string]bool{"model.jaffle_shop.stg_payments": true, "model.jaffle_shop.orders": true, "model.jaffle_shop.customers": true, "model.jaffle_shop.stg_orders": false}},
		{"summer_camp_recce_jaffle_shop",
			map[string]any{"model.jaffle_shop.customer_order_patter": "removed", "model.jaffle_shop.customer_order_pattern": "added"}, nil},
		{"recce_super_demo/pr2-model-rename",
			map[string]any{"model.super_recce_training.stg_orders": "removed", "model.super_recce_training.staging_orders": "added", "model.super_recce_training.orders": "modified"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.fixture, func(t *testing.T) {
			p := realPair(t, tc.fixture)
			c := Compare(p)
			all := c.Graph.IDs()
			d := c.Diff(all, "all", nil)
			if d.SingleEnv || d.Warning != "" {
				t.Fatal("two environments expected")
			}
			for id, want := range tc.want {
				got, _, found := statusOf(d, id)
				if !found {
					t.Fatalf("%s missing from the diff (removed nodes must stay visible)", id)
				}
				if got != want {
					t.Errorf("%s change_status = %v, want %v", id, got, want)
				}
			}
			for id, want := range tc.impact {
				if _, got, _ := statusOf(d, id); got != want {
					t.Errorf("%s impacted = %v, want %v", id, got, want)
				}
			}
			// Edges only reference returned nodes.
			for _, e := range d.Edges.Data {
				if e[0].(int) >= d.ReturnedNodes || e[1].(int) >= d.ReturnedNodes {
					t.Fatalf("edge %v out of range", e)
				}
			}
		})
	}
}

func TestModificationKindsReported(t *testing.T) {
	p := realPair(t, "mrkidbk_test_dbt_jaffle_shop")
	d := Compare(p).Diff([]string{"model.jaffle_shop.stg_payments"}, "changed_models", nil)
	if len(d.Nodes.Data) != 1 {
		t.Fatalf("rows = %d", len(d.Nodes.Data))
	}
	mods := d.Nodes.Data[0][d.Nodes.Index("modifications")].([]string)
	if len(mods) == 0 || mods[0] != "body" {
		t.Fatalf("modifications = %v, want body", mods)
	}
}

func TestViewAllTruncation(t *testing.T) {
	sp := synth.Generate(synth.Options{Models: 400, Seed: 1, Changed: 0.02})
	p := loadSynth(t, sp)
	c := Compare(p)
	d := c.Diff(c.Graph.IDs(), "all", nil)
	if !d.Truncated || d.ReturnedNodes != ViewAllMaxNodes || d.TotalNodes != len(c.Graph.IDs()) {
		t.Fatalf("truncated=%v returned=%d total=%d", d.Truncated, d.ReturnedNodes, d.TotalNodes)
	}
	// Every changed node survives truncation.
	kept := map[string]bool{}
	for _, row := range d.Nodes.Data {
		kept[row[1].(string)] = true
	}
	for _, id := range sp.ChangedIDs {
		if !kept[id] {
			t.Fatalf("changed node %s was truncated away", id)
		}
	}
	if d.ChangedCount != len(sp.ChangedIDs) {
		t.Fatalf("changed = %d, want %d", d.ChangedCount, len(sp.ChangedIDs))
	}
	// changed_models never truncates.
	if d := c.Diff(c.Graph.IDs(), "changed_models", nil); d.Truncated {
		t.Fatal("changed_models must not truncate")
	}
}

func TestSingleEnvWarns(t *testing.T) {
	p := realPair(t, "mrkidbk_test_dbt_jaffle_shop")
	p.Base, p.SingleEnv = p.Current, true
	d := Compare(p).Diff([]string{"model.jaffle_shop.customers"}, "all", nil)
	if !d.SingleEnv || d.Warning == "" || d.ChangedCount != 0 {
		t.Fatalf("single env diff = %+v", d)
	}
}

func loadSynth(t testing.TB, sp *synth.Project) *dbt.Project {
	t.Helper()
	dir := t.TempDir()
	if err := sp.Write(dir); err != nil {
		t.Fatal(err)
	}
	p, err := dbt.LoadProject(context.Background(), dbt.Paths{ProjectDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// BenchmarkLoadAndDiff measures loading both builds of a 5,000-model project
// and computing the full lineage diff; BenchmarkUnmarshalAnyFloor decodes the
// same four files into `any`, the floor the issue compares against.
func BenchmarkLoadAndDiff(b *testing.B) {
	dir := b.TempDir()
	sp := synth.Generate(synth.Options{Models: 5000, Seed: 7})
	if err := sp.Write(dir); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p, err := dbt.LoadProject(context.Background(), dbt.Paths{ProjectDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		c := Compare(p)
		_ = c.Diff(c.Graph.IDs(), "all", nil)
	}
}

func BenchmarkUnmarshalAnyFloor(b *testing.B) {
	dir := b.TempDir()
	sp := synth.Generate(synth.Options{Models: 5000, Seed: 7})
	if err := sp.Write(dir); err != nil {
		b.Fatal(err)
	}
	files := []string{"target/manifest.json", "target/catalog.json", "target-base/manifest.json", "target-base/catalog.json"}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				b.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	}
}
