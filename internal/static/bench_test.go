package static

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// synthetic builds a project of n models (plus n/20 sources): each model has
// a tested key, 12 columns with descriptions, three references to earlier
// models (one tested with a relationships test, one joined in SQL, one only
// named like a key), and column lineage for every model.
func synthetic(b testing.TB, n int) *Project {
	m := newMF()
	lin := &fakeLineage{cols: map[string][]ColumnInputs{}, rows: map[string][]RowInput{}, joins: map[string][]JoinEvidence{}}
	ids := make([]string, n)
	names := make([]string, n)
	for i := 0; i < n/20; i++ {
		m.source("raw", fmt.Sprintf("raw_thing%04ds", i), []string{"id", "payload", "loaded_at"})
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("thing%04ds", i)
		stem := fmt.Sprintf("thing%04d", i)
		names[i] = name
		columns := []string{stem + "_id", "name", "status", "amount", "created_at", "updated_at", "category", "score"}
		var refs []int
		if i > 0 {
			for _, d := range []int{1, 7, 31} {
				if i-d >= 0 {
					refs = append(refs, i-d)
				}
			}
		}
		for _, r := range refs {
			columns = append(columns, fmt.Sprintf("thing%04d_id", r))
		}
		cs := cols(columns...)
		for _, c := range cs {
			c.(map[string]any)["description"] = "The " + strings.ReplaceAll(c.(map[string]any)["name"].(string), "_", " ") + " of the thing, used for revenue and customer reporting."
		}
		deps := []string{}
		for _, r := range refs {
			deps = append(deps, ids[r])
		}
		cfg := map[string]any{"materialized": "table", "enabled": true}
		if i%10 == 0 {
			cfg = map[string]any{"materialized": "incremental", "unique_key": stem + "_id", "enabled": true,
				"freshness": map[string]any{"build_after": map[string]any{"count": 1, "period": "day", "updates_on": "any"}}}
		}
		id := m.model(name, nil, map[string]any{"columns": cs, "config": cfg, "description": "Thing number " + stem + " for the revenue mart.",
			"depends_on": map[string]any{"nodes": deps, "macros": []string{}}})
		ids[i] = id
		m.test("unique", id, stem+"_id", nil, nil)
		m.test("not_null", id, stem+"_id", nil, nil)
		m.test("accepted_values", id, "status", map[string]any{"values": []string{"a", "b"}}, nil)
		var ci []ColumnInputs
		for _, c := range columns {
			var in []ColumnRef
			if len(refs) > 0 {
				in = append(in, ColumnRef{ids[refs[0]], c})
			}
			ci = append(ci, ColumnInputs{Column: c, Inputs: in, Transformation: "identity"})
		}
		lin.cols[id] = ci
		for k, r := range refs {
			fk := fmt.Sprintf("thing%04d_id", r)
			switch k {
			case 0:
				m.test("relationships", id, fk, map[string]any{"to": "ref('" + names[r] + "')", "field": fk}, nil)
			case 1:
				lin.joins[id] = append(lin.joins[id], JoinEvidence{Model: id, LeftNode: id, LeftColumns: []string{fk}, RightNode: ids[r], RightColumns: []string{fk}})
				lin.rows[id] = append(lin.rows[id], RowInput{Column: ColumnRef{ids[r], fk}, Kind: "join"})
			}
		}
	}
	return New(m.env(b), Options{Lineage: lin})
}

func BenchmarkOperations(b *testing.B) {
	ctx := context.Background()
	p := synthetic(b, 2000)
	dir := b.TempDir()
	var obs strings.Builder
	obs.WriteString("source_table,source_column,target_table,target_column\n")
	for i := 1; i < 2000; i += 3 {
		fmt.Fprintf(&obs, "db.main.thing%04ds,name,db.main.thing%04ds,name\n", i-1, i)
	}
	obsPath := filepath.Join(dir, "observed.csv")
	if err := os.WriteFile(obsPath, []byte(obs.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ops := []struct {
		name string
		run  func() error
	}{
		{"project_summary", func() error { _, err := Summary(ctx, p, SummaryInput{}); return err }},
		{"search", func() error { _, err := Search(ctx, p, SearchInput{Query: "thing1 amount"}); return err }},
		{"erd_all", func() error { _, err := ERD(ctx, p, ERDInput{Infer: true}); return err }},
		{"erd_mermaid_select", func() error {
			_, err := ERD(ctx, p, ERDInput{Select: []string{"thing1000s"}, Depth: 2, Format: "mermaid"})
			return err
		}},
		{"test_gaps", func() error { _, err := TestGaps(ctx, p, TestGapsInput{Limit: 500}); return err }},
		{"state_policies", func() error { _, err := StatePolicies(ctx, p, StatePoliciesInput{}); return err }},
		{"find_data", func() error { _, err := FindData(ctx, p, FindDataInput{Query: "revenue amount score"}); return err }},
		{"describe_entity", func() error { _, err := DescribeEntity(ctx, p, DescribeEntityInput{Name: "thing1500s"}); return err }},
		{"plan_query", func() error {
			_, err := PlanQuery(ctx, p, PlanQueryInput{Entities: []string{"thing1999s", "thing0000s", "thing0500s", "thing1000s"}, Infer: true})
			return err
		}},
		{"compare_observed", func() error {
			_, err := CompareObserved(ctx, p, CompareObservedInput{ObservedFile: obsPath})
			return err
		}},
		{"openlineage", func() error { _, err := OpenLineage(ctx, p, OpenLineageInput{}); return err }},
		{"unknown_name", func() error {
			_, err := DescribeEntity(ctx, p, DescribeEntityInput{Name: "thing150s"})
			if err == nil {
				return fmt.Errorf("expected an error")
			}
			return nil
		}},
	}
	// Warm the lazily built indexes once, as a long-running server would.
	for _, op := range ops {
		if err := op.run(); err != nil {
			b.Fatalf("%s: %v", op.name, err)
		}
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				if err := op.run(); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time per op is stable on a loaded machine, unlike wall time.
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkPrepare measures New plus the first ERD build and text index
// (the one-off cost after loading artifacts).
func BenchmarkPrepare(b *testing.B) {
	ctx := context.Background()
	base := synthetic(b, 2000)
	env := base.env
	lin := base.lin
	for b.Loop() {
		p := New(env, Options{Lineage: lin})
		if _, err := ERD(ctx, p, ERDInput{}); err != nil {
			b.Fatal(err)
		}
		if _, err := FindData(ctx, p, FindDataInput{Query: "x"}); err != nil {
			b.Fatal(err)
		}
	}
}
