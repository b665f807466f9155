package diff

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
)

// Base and current resolving to one table is refused by every data diff
// (one table read twice always shows "no change"); without a base build
// (single-env mode) base is current by design and the diff runs.
func TestSameRelationRefused(t *testing.T) {
	for name, mk := range map[string]func(*testing.T) Env{"duckdb": fixtureEnv, "postgres": pgEnv} {
		t.Run(name, func(t *testing.T) {
			env := mk(t)
			ctx := context.Background()
			same := env
			same.Project = &dbt.Project{Base: env.Project.Current, Current: env.Project.Current}
			n, _ := env.Project.Current.Manifest.Lookup("orders")
			want := fmt.Sprintf("base and current are the same table: orders resolves to %s in both builds, so comparing it cannot show a change; %s", relationSQL(env.Dialect, n), RebuildBaseHint)
			calls := map[string]func(Env) error{
				"value_diff": func(e Env) error {
					_, err := ValueDiff(ctx, e, ValueDiffInput{Model: "orders", PrimaryKey: Keys{"id"}})
					return err
				},
				"value_diff_detail": func(e Env) error {
					_, err := ValueDiffDetail(ctx, e, ValueDiffDetailInput{Model: "orders", PrimaryKey: Keys{"id"}})
					return err
				},
				"profile_diff": func(e Env) error { _, err := ProfileDiff(ctx, e, ProfileDiffInput{Model: "orders"}); return err },
				"top_k_diff": func(e Env) error {
					_, err := TopKDiff(ctx, e, TopKDiffInput{Model: "orders", Column: "amount"})
					return err
				},
				"histogram_diff": func(e Env) error {
					_, err := HistogramDiff(ctx, e, HistogramDiffInput{Model: "orders", Column: "amount"})
					return err
				},
				"row_count_diff": func(e Env) error {
					_, err := RowCountDiff(ctx, e, RowCountDiffInput{NodeNames: []string{"orders"}})
					return err
				},
			}
			for op, call := range calls {
				if err := call(same); !errors.Is(err, ErrSameRelation) || err.Error() != want {
					t.Errorf("%s: %v\nwant %s", op, err, want)
				}
				if err := call(env); err != nil {
					t.Errorf("%s on distinct builds: %v", op, err)
				}
				single := same
				single.Project = &dbt.Project{Base: env.Project.Current, Current: env.Project.Current, SingleEnv: true}
				if err := call(single); err != nil {
					t.Errorf("%s in single-env mode: %v", op, err)
				}
			}
			_, err := QueryDiff(ctx, same, QueryDiffInput{SQLTemplate: "select count(*) as n from {{ ref('orders') }}"})
			wantQ := fmt.Sprintf("base and current are the same table: every ref() of the query resolves to the same relation in both builds (the query is %q in both), so comparing it cannot show a change; %s",
				"select count(*) as n from "+relationSQL(env.Dialect, n), RebuildBaseHint)
			if !errors.Is(err, ErrSameRelation) || err.Error() != wantQ {
				t.Errorf("query_diff: %v\nwant %s", err, wantQ)
			}
			if _, err := QueryDiff(ctx, env, QueryDiffInput{SQLTemplate: "select count(*) as n from {{ ref('orders') }}"}); err != nil {
				t.Errorf("query_diff on distinct builds: %v", err)
			}
		})
	}
}

// A column typo names the closest columns before listing them all.
func TestUnknownColumnSuggestions(t *testing.T) {
	for name, mk := range map[string]func(*testing.T) Env{"duckdb": fixtureEnv, "postgres": pgEnv} {
		t.Run(name, func(t *testing.T) {
			env := mk(t)
			ctx := context.Background()
			_, err := ValueDiff(ctx, env, ValueDiffInput{Model: "customers", PrimaryKey: Keys{"id"}, Columns: []string{"nme"}})
			if want := `column "nme" does not exist in customers in the base environment; did you mean "name" or "age"? Its columns are id, name, age`; err == nil || err.Error() != want {
				t.Errorf("value_diff: %v\nwant %s", err, want)
			}
			_, err = TopKDiff(ctx, env, TopKDiffInput{Model: "customers", Column: "zzzzzz"})
			if want := `column "zzzzzz" does not exist in customers in the base environment; its columns are id, name, age`; err == nil || err.Error() != want {
				t.Errorf("top_k_diff: %v\nwant %s", err, want)
			}
		})
	}
}
