package ops

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/synth"
)

// BenchmarkLineageDiffWarm is the cached second call of lineage_diff on a
// 5,000-model project: a stat of the artifacts, the cached comparison, the
// selector and the result frames (issue target: under 5 ms).
func BenchmarkLineageDiffWarm(b *testing.B) {
	dir := b.TempDir()
	if err := synth.Generate(synth.Options{Models: 5000, Seed: 3}).Write(dir); err != nil {
		b.Fatal(err)
	}
	s := NewSession(Config{Paths: dbt.Paths{ProjectDir: dir}})
	op, _ := Default().Get("lineage_diff")
	args := json.RawMessage(`{}`)
	ctx := context.Background()
	if _, err := op.CallJSON(ctx, s, args); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := op.CallJSON(ctx, s, args); err != nil {
			b.Fatal(err)
		}
	}
}
