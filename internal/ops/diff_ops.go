package ops

import (
	"context"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/diff"
)

// diffEnv gives the diff operations the project, the warehouse and the
// selector; warehouse=false builds a metadata-only environment.
func diffEnv(ctx context.Context, s *Session, warehouse bool) (diff.Env, error) {
	p, err := s.Project(ctx)
	if err != nil {
		return diff.Env{}, err
	}
	env := diff.Env{
		Project: p,
		Select: func(sel diff.Selection) ([]string, error) {
			ids, _, err := selectIDs(ctx, s, SelectInput{Select: sel.Select, Exclude: sel.Exclude, Packages: sel.Packages, ViewMode: sel.ViewMode, AllowEmpty: sel.AllowEmpty})
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
func addDiff[In, Out any](r *Registry, spec Spec, run func(context.Context, diff.Env, In) (*Out, error)) {
	spec.Warehouse, spec.DiffTool = true, true
	Add(r, spec, func(ctx context.Context, s *Session, in *In) (*Out, error) {
		env, err := diffEnv(ctx, s, true)
		if err != nil {
			return nil, err
		}
		return run(ctx, env, *in)
	})
}

// addCurrent registers a warehouse operation of the current environment
// alone (no base needed, so not a diff tool).
func addCurrent[In, Out any](r *Registry, spec Spec, run func(context.Context, diff.Env, In) (*Out, error)) {
	spec.Warehouse = true
	Add(r, spec, func(ctx context.Context, s *Session, in *In) (*Out, error) {
		env, err := diffEnv(ctx, s, true)
		if err != nil {
			return nil, err
		}
		return run(ctx, env, *in)
	})
}

func addDiffOps(r *Registry) {
	addCurrent(r, Spec{Name: "row_count", RunBacked: true, Title: "Row count", Positional: "node_names",
		Description: "Row counts in current only (no base needed): {<model>: {curr, curr_meta}, run_id}; a null count's curr_meta.status says why, " +
			"as in row_count_diff."},
		diff.CurrentRowCount)
	addCurrent(r, Spec{Name: "profile", RunBacked: true, Title: "Profile",
		Description: "Profile a model's columns in current only (no base needed): {current: DataFrame}, one row per column with " +
			"row_count, not_null_proportion, distinct_proportion, distinct_count, is_unique, min, max, avg, median (as profile_diff)."},
		diff.CurrentProfile)

	addDiff(r, Spec{Name: "row_count_diff", RunBacked: true, Title: "Row count diff", Positional: "node_names",
		Description: "Row counts in base and current: {<model>: {base, curr, base_meta, curr_meta}, run_id}. A null count's *_meta.status says why: " +
			"not_in_manifest, unsupported_resource_type, unsupported_materialization, permission_denied or table_not_found (stale " +
			"artifacts or a misconfigured environment: report it, it is not 0 rows)."},
		diff.RowCountDiff)
	Add(r, Spec{Name: "schema_diff", Memoize: true, Title: "Schema diff", DiffTool: true,
		Description: "Added, removed and type-changed columns from both catalogs, as a DataFrame with schema_coverage: no rows means no change " +
			"only when it is complete (partial: unchecked_nodes lack column metadata, not evidence of removal)."},
		func(ctx context.Context, s *Session, in *diff.SchemaDiffInput) (*diff.SchemaDiffResult, error) {
			env, err := diffEnv(ctx, s, false)
			if err != nil {
				return nil, err
			}
			return diff.SchemaDiff(ctx, env, *in)
		})
	addDiff(r, Spec{Name: "query", RunBacked: true, Title: "Query", Positional: "sql_template",
		Description: "Run a read-only SELECT in current (base=true: in base); {{ ref() }} and {{ source() }} resolve per environment. " +
			"A DataFrame capped at 2,000 rows."},
		diff.Query)
	addDiff(r, Spec{Name: "query_diff", RunBacked: true, Title: "Query diff",
		Description: "Run sql_template in both environments (base_sql_template in base): base and current DataFrames, or with primary_keys " +
			"only the differing rows (diff, in_a/in_b) and a summary."},
		diff.QueryDiff)
	addDiff(r, Spec{Name: "value_diff", RunBacked: true, Title: "Value diff",
		Description: "Compare a model's rows by primary key (verified unique) in one warehouse pass: summary and per-column matched, matched_p."},
		diff.ValueDiff)
	addDiff(r, Spec{Name: "profile_diff", RunBacked: true, Title: "Profile diff",
		Description: "Profile a model's columns in both environments: row_count, not_null_proportion, distinct_proportion, " +
			"distinct_count, is_unique, min, max, avg, median."},
		diff.ProfileDiff)
	addDiff(r, Spec{Name: "top_k_diff", Title: "Top-k diff",
		Description: "The k (default 10) most frequent values of a column over both environments, with each side's counts, valids and total."},
		diff.TopKDiff)
	addDiff(r, Spec{Name: "histogram_diff", Title: "Histogram diff",
		Description: "Histograms of a numeric or date column in both environments on shared bins (num_bins, default 50; dates by year, month or day)."},
		diff.HistogramDiff)
	addDiff(r, Spec{Name: "value_diff_detail", Title: "Value diff detail",
		Description: "The rows that differ by primary key, with in_a (in base) and in_b (in current); a changed row appears twice. " +
			"Capped (limit, default 1,000)."},
		diff.ValueDiffDetail)
}
