package ops

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/diff"
)

const runBacked = " The result carries a run_id you can cite."

// diffEnv gives the diff operations the project, the warehouse and the
// selector; warehouse=false builds a metadata-only environment.
func diffEnv(ctx context.Context, s *Session, warehouse bool) (diff.Env, error) {
	p, err := s.Project(ctx)
	if err != nil {
		return diff.Env{}, err
	}
	env := diff.Env{
		Project: p,
		Select: func(sel, exclude string) ([]string, error) {
			ids, _, err := selectIDs(ctx, s, SelectInput{Select: sel, Exclude: exclude})
			return ids, err
		},
		Progress: func(pr diff.Progress) { ReportProgress(ctx, pr.Percentage, 1, pr.Message) },
	}
	if !warehouse {
		return env, nil
	}
	conn, err := s.Warehouse(ctx)
	if err != nil {
		return diff.Env{}, err
	}
	d, err := dialect.ForAdapter(conn.Dialect())
	if err != nil {
		return diff.Env{}, err
	}
	env.Conn, env.Dialect = conn, d
	return env, nil
}

// addDiff registers a warehouse diff operation with the shared plumbing.
func addDiff[In, Out any](r *Registry, spec Spec, run func(context.Context, diff.Env, In) (*Out, error), text func(io.Writer, *Out) error) {
	spec.Warehouse, spec.DiffTool = true, true
	Add(r, spec, func(ctx context.Context, s *Session, in *In) (*Out, error) {
		env, err := diffEnv(ctx, s, true)
		if err != nil {
			return nil, err
		}
		return run(ctx, env, *in)
	}, text)
}

func addDiffOps(r *Registry) {
	addDiff(r, Spec{Name: "row_count_diff", RunBacked: true, Title: "Row count diff",
		Description: "Count rows of models (tables, views, incremental models, snapshots) in base and current. Per model: base, current and per side " +
			"a status (ok, not_in_manifest, unsupported_resource_type, unsupported_materialization, table_not_found, permission_denied) with a message. " +
			"table_not_found usually means stale artifacts or a misconfigured environment: report it, do not read it as 0 rows. A missing table never fails the call. " +
			"Name models with node_names/node_ids or a selector. " + SelectGrammar, Positional: "node_names"},
		diff.RowCountDiff, renderRowCounts)
	Add(r, Spec{Name: "schema_diff", Memoize: true, Title: "Schema diff", DiffTool: true,
		Description: "Added, removed and type-changed columns per node, from the catalogs of both builds (no warehouse query). " +
			"`changes` rows are (node_id, column, change_status, base_type, current_type). Empty changes mean 'no schema change' only when " +
			"schema_coverage.status is complete; partial lists the nodes that could not be compared because one side has no column metadata " +
			"(never evidence of removal). " + SelectGrammar},
		func(ctx context.Context, s *Session, in *diff.SchemaDiffInput) (*diff.SchemaDiffResult, error) {
			env, err := diffEnv(ctx, s, false)
			if err != nil {
				return nil, err
			}
			return diff.SchemaDiff(ctx, env, *in)
		}, nil)
	addDiff(r, Spec{Name: "query", RunBacked: true, Title: "Query",
		Description: "Run read-only SQL in the current (or, with base=true, the base) environment. {{ ref('model') }} and {{ source('src','table') }} " +
			"resolve to that environment's relations. Rows are capped at 2,000 with `more` and the total row count." + runBacked, Positional: "sql"},
		diff.Query, nil)
	addDiff(r, Spec{Name: "query_diff", RunBacked: true, Title: "Query diff",
		Description: "Run the same read-only SQL (or base_sql in base) in both environments. Without primary_keys both result sets are returned; " +
			"with primary_keys the difference is computed in the warehouse: rows only in base, only in current, or changed, flagged in_a (base) / in_b (current), capped." + runBacked},
		diff.QueryDiff, nil)
	addDiff(r, Spec{Name: "value_diff", RunBacked: true, Title: "Value diff",
		Description: "Compare a model's rows by primary key in one pass in the warehouse: summary total/added/removed/changed rows and per column " +
			"matched, matched_p, null_in_base_only, null_in_current_only and base/current means for numeric columns. The key is verified unique first." + runBacked},
		diff.ValueDiff, nil)
	addDiff(r, Spec{Name: "profile_diff", RunBacked: true, Title: "Profile diff",
		Description: "Profile a model's columns in both environments, one query per side: per column row_count, not_null_proportion, distinct_proportion, " +
			"distinct_count, is_unique, min, max, avg and median (numeric), min/max (dates). Correct on empty tables." + runBacked},
		diff.ProfileDiff, nil)
	addDiff(r, Spec{Name: "top_k_diff", Title: "Top-k diff",
		Description: "The k most frequent values of a column (default 10) over both environments as one shared category list with base and current counts, " +
			"plus valid (non-null) and total counts per side."},
		diff.TopKDiff, nil)
	addDiff(r, Spec{Name: "histogram_diff", Title: "Histogram diff",
		Description: "Histograms of a numeric or date/time column in both environments on shared bin edges from the min/max of both sides (num_bins, default 50; " +
			"dates use yearly/monthly/daily buckets by span). Unsupported types are a clear error."},
		diff.HistogramDiff, nil)
	addDiff(r, Spec{Name: "value_diff_detail", Title: "Value diff detail",
		Description: "The rows that differ between base and current by primary key, key columns first, with in_a (row in base) and in_b (row in current); capped (default 1,000)."},
		diff.ValueDiffDetail, nil)
}

func renderRowCounts(w io.Writer, out *diff.RowCountDiffResult) error {
	if out.Warning != "" {
		fmt.Fprintf(w, "warning: %s\n", out.Warning)
	}
	names := make([]string, 0, len(out.Models))
	for n := range out.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "%-40s %12s %12s  %s\n", "model", "base", "current", "delta")
	for _, n := range names {
		rc := out.Models[n]
		side := func(v *int64, m diff.RowCountMeta) string {
			if v == nil {
				return "N/A (" + m.Status + ")"
			}
			return fmt.Sprint(*v)
		}
		delta := ""
		if rc.Base != nil && rc.Current != nil {
			delta = fmt.Sprintf("%+d", *rc.Current-*rc.Base)
		}
		fmt.Fprintf(w, "%-40s %12s %12s  %s\n", n, side(rc.Base, rc.BaseMeta), side(rc.Current, rc.CurrentMeta), delta)
		for _, m := range []diff.RowCountMeta{rc.BaseMeta, rc.CurrentMeta} {
			if m.Status != diff.StatusOK && m.Message != "" {
				fmt.Fprintf(w, "  %s: %s\n", m.Status, m.Message)
				break
			}
		}
	}
	return nil
}
