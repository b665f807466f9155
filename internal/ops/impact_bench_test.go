package ops

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/cputime"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/synth"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
)

// BenchmarkImpactAnalysis2000 is issues #13 and #23's scale target: one
// impact_analysis call on a 2,000-model synthetic project with realistic
// model names (30–40 characters, in layer/domain folders) and 2% of the
// models changed — about 150 impacted models — built into DuckDB with empty
// relations, so what is measured is the per-model cost of the triage (key
// checks, value diffs, lineage), not scans. Targets: ≤ 5 s cold wall on 2
// cores, a default response ≤ 40 KB naming every impacted model; it reports
// the detail=full response's size too (full_bytes).
//
//   - session: the call as an MCP server answers it: the session already
//     loaded the artifacts and opened the warehouse (any earlier tool call
//     does both); column lineage, key checks and value diffs are timed.
//   - cold: the call as `ripple impact-analysis` makes it from a fresh
//     process: artifact load and the warehouse open are timed too (opening
//     a DuckDB file of 4,000 tables alone takes seconds).
//
// Each reports cpu_s/op next to the wall time (the machine may be shared:
// CPU time stretches less than wall time), the response bytes and the
// impacted models and tables. Run with -benchtime=1x -count=N and read the
// quietest run.
func BenchmarkImpactAnalysis2000(b *testing.B) {
	dir := b.TempDir()
	p := synth.Generate(synth.Options{Models: 2000, Seed: 7, Changed: 0.02, LongNames: true})
	if err := p.Write(dir); err != nil {
		b.Fatal(err)
	}
	dbPath := filepath.Join(dir, "synth.duckdb")
	if err := p.BuildDuckDB(context.Background(), dbPath); err != nil {
		b.Fatal(err)
	}
	newSession := func() *Session {
		return NewSession(Config{Paths: dbt.Paths{ProjectDir: dir}, OpenWarehouse: func(ctx context.Context, _ *dbt.Project) (warehouse.Conn, error) {
			return duckdb.Open(ctx, duckdb.Options{Path: dbPath, ReadOnly: true})
		}})
	}
	for _, mode := range []string{"session", "cold"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			op, _ := Default().Get("impact_analysis")
			var out any
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				s := newSession()
				if mode == "session" {
					if _, err := s.Comparison(ctx); err != nil {
						b.Fatal(err)
					}
					if _, err := s.Warehouse(ctx); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				c0 := cputime.Now()
				var err error
				if out, err = op.CallJSON(ctx, s, json.RawMessage(`{}`)); err != nil {
					b.Fatal(err)
				}
				cpu += cputime.Now() - c0
				b.StopTimer()
				_ = s.Close()
				b.StartTimer()
			}
			reportImpact(b, out.(*impact.Result), cpu)
			s := newSession()
			defer s.Close()
			full, err := op.CallJSON(ctx, s, json.RawMessage(`{"detail":"full"}`))
			if err != nil {
				b.Fatal(err)
			}
			raw, _ := json.Marshal(full)
			r := full.(*impact.Result)
			if len(r.ConfirmedNotImpactedModels) != r.Counts.NotImpacted || r.NotImpactedSummary != nil {
				b.Fatalf("detail=full names %d of %d not-impacted models", len(r.ConfirmedNotImpactedModels), r.Counts.NotImpacted)
			}
			b.ReportMetric(float64(len(raw)), "full_bytes")
		})
	}
}

// reportImpact checks the benchmark's answer and reports its metrics.
func reportImpact(b *testing.B, r *impact.Result, cpu time.Duration) {
	b.Helper()
	raw, err := json.Marshal(r)
	if err != nil {
		b.Fatal(err)
	}
	tables := 0
	for _, m := range r.ConfirmedImpactedModels {
		if m.Materialized == "table" {
			tables++
		}
		if !strings.Contains(string(raw), `"name":"`+m.Name+`"`) {
			b.Fatalf("the response does not name impacted model %s", m.Name)
		}
		if m.DataImpact == impact.Potential {
			b.Errorf("%s stays potential: %s", m.Name, m.ValueDiffSkipped)
		}
	}
	if n := len(r.ConfirmedImpactedModels); n < 120 || n > 200 || len(r.Errors) > 0 {
		b.Fatalf("%d impacted models (want about 150), errors %v", len(r.ConfirmedImpactedModels), r.Errors)
	}
	for _, n := range r.NotImpactedByColumnLineage[:min(len(r.NotImpactedByColumnLineage), impact.MaxCompactEvidence)] {
		if !strings.Contains(string(raw), `"`+n.Name+`"`) {
			b.Fatalf("the response does not name ruled-out model %s", n.Name)
		}
	}
	if c := r.Counts; c.Modified+c.Added+c.Removed+c.Downstream != len(r.ConfirmedImpactedModels) ||
		r.NotImpactedSummary == nil || c.NotImpacted != len(r.ConfirmedNotImpactedModels)+r.NotImpactedSummary.Count {
		b.Fatalf("counts %+v do not add up (summary %+v)", c, r.NotImpactedSummary)
	}
	part := func(v any) int { p, _ := json.Marshal(v); return len(p) }
	b.Logf("bytes: impacted %d, not impacted names %d (%d), ruled out %d (%d), summary %d, suggested %d",
		part(r.ConfirmedImpactedModels), part(r.ConfirmedNotImpactedModels), len(r.ConfirmedNotImpactedModels),
		part(r.NotImpactedByColumnLineage), len(r.NotImpactedByColumnLineage), part(r.NotImpactedSummary), part(r.SuggestedChecks))
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu_s/op")
	b.ReportMetric(float64(len(raw)), "bytes")
	b.ReportMetric(float64(len(r.ConfirmedImpactedModels)), "impacted")
	b.ReportMetric(float64(tables), "impacted_tables")
}
