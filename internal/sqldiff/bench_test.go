package sqldiff

import (
	"encoding/json"
	"testing"

	"github.com/ripple-data/ripple/internal/synth"
)

// BenchmarkDiffModified2000 is the structural diff of every modified model
// of a 2,000-model synthetic project (target: ≤ 50 ms per op).
func BenchmarkDiffModified2000(b *testing.B) {
	p := synth.Generate(synth.Options{Models: 2000, Seed: 7})
	type manifest struct {
		Nodes map[string]struct {
			CompiledCode string `json:"compiled_code"`
		} `json:"nodes"`
	}
	var base, cur manifest
	if err := json.Unmarshal(p.BaseManifest, &base); err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(p.CurrentManifest, &cur); err != nil {
		b.Fatal(err)
	}
	var pairs [][2]string
	for _, id := range p.ChangedIDs {
		pairs = append(pairs, [2]string{base.Nodes[id].CompiledCode, cur.Nodes[id].CompiledCode})
	}
	if len(pairs) == 0 {
		b.Fatal("no modified model")
	}
	b.ReportMetric(float64(len(pairs)), "models")
	b.ResetTimer()
	for b.Loop() {
		for _, pr := range pairs {
			if r := Diff("duckdb", pr[0], pr[1]); r.Error != nil || r.Cosmetic {
				b.Fatalf("modified model diffed as %+v", r)
			}
		}
	}
}
