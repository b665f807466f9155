package diff

import (
	"context"
	"strings"
	"testing"
)

// TestRelationNameInjection is issue #19 defect 9: a manifest relation_name
// with SQL after the relation is refused, naming the node, by every diff
// that reads it, on DuckDB and Postgres; nothing of it runs.
func TestRelationNameInjection(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  func(*testing.T) Env
		tail string
		// probe reads a setting the tail would have changed.
		probe, want string
	}{
		{"duckdb", fixtureEnv, `; SET threads = 1; SELECT 1`, "SELECT current_setting('threads') > 1", "true"},
		{"postgres", pgEnv, `; SELECT set_config('statement_timeout', '1', false)`, "SELECT current_setting('statement_timeout')", `"0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := tc.env(t)
			ctx := context.Background()
			n, err := env.Project.Current.Manifest.Lookup("customers")
			if err != nil {
				t.Fatal(err)
			}
			n.RelationName = relationSQL(env.Dialect, n) + tc.tail
			calls := map[string]func() error{
				"row_count_diff": func() error {
					_, err := RowCountDiff(ctx, env, RowCountDiffInput{NodeNames: []string{"customers"}})
					return err
				},
				"value_diff": func() error {
					_, err := ValueDiff(ctx, env, ValueDiffInput{Model: "customers", PrimaryKey: Keys{"id"}})
					return err
				},
				"profile_diff": func() error {
					_, err := ProfileDiff(ctx, env, ProfileDiffInput{Model: "customers"})
					return err
				},
				"query ref": func() error {
					_, err := Query(ctx, env, QueryInput{SQL: "select count(*) from {{ ref('customers') }}"})
					return err
				},
			}
			for name, call := range calls {
				err := call()
				if err == nil || !strings.Contains(err.Error(), n.UniqueID) || !strings.Contains(err.Error(), "not a relation name") {
					t.Errorf("%s: %v", name, err)
				}
			}
			res, err := Query(ctx, env, QueryInput{SQL: tc.probe})
			if err != nil {
				t.Fatal(err)
			}
			if got := jsonOf(t, res.Data[0][0]); got != tc.want {
				t.Errorf("%s = %s after the calls, want %s", tc.probe, got, tc.want)
			}
			// Other models still diff.
			if _, err := RowCountDiff(ctx, env, RowCountDiffInput{NodeNames: []string{"orders"}}); err != nil {
				t.Errorf("orders: %v", err)
			}
		})
	}
}
