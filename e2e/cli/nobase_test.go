package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Without base artifacts every comparing command says so first and exits 4
// ("the data could not be checked") with the fix, so a CI job that forgot to
// build the base cannot pass on "nothing changed"; with --single-env it runs
// and every result carries the single-environment warning.
func TestNoBaseIsNotSilent(t *testing.T) {
	t.Parallel()
	commands := [][]string{
		{"lineage-diff"},
		{"impact-analysis"},
		{"summary"},
		{"render-lineage-mermaid"},
		{"schema-diff", "--select", "customers"},
		{"row-count-diff", "--select", "customers"},
		{"profile-diff", "customers"},
		{"value-diff", "customers", "--primary-key", "customer_id"},
		{"value-diff-detail", "customers", "--primary-key", "customer_id"},
		{"top-k-diff", "orders", "--column", "status"},
		{"histogram-diff", "orders", "--column", "amount"},
		{"query-diff", "--sql-template", "select 1 as n"},
	}
	for _, cmd := range commands {
		t.Run(cmd[0], func(t *testing.T) {
			t.Parallel()
			r := ripple(t, append([]string{"--target-base-path", "no-such-base"}, append(cmd, "--json")...)...)
			stderr := string(r.stderr)
			if r.code != 4 || len(r.stdout) != 0 {
				t.Fatalf("want exit 4 and no result:\n%s", r)
			}
			for _, want := range []string{"no-such-base/manifest.json does not exist", "the data could not be checked",
				"dbt docs generate --target prod --target-path no-such-base", "--single-env"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if !strings.HasPrefix(stderr, "error: no base artifacts") {
				t.Errorf("stderr does not open with the missing base:\n%s", stderr)
			}
			out := rippleJSON(t, append([]string{"--single-env", "--target-base-path", "no-such-base"}, cmd...)...)
			w, _ := out["_warning"].(string)
			if !strings.Contains(w, "dbt docs generate --target-path target-base") {
				b, _ := json.Marshal(out)
				t.Errorf("--single-env result has no single-env _warning: %.300s", b)
			}
		})
	}
	t.Run("run", func(t *testing.T) {
		t.Parallel()
		r := ripple(t, "--target-base-path", "no-such-base", "run", "--no-presets")
		if r.code != 4 || !strings.HasPrefix(string(r.stderr), "error: no base artifacts") {
			t.Fatalf("want exit 4 opening with the missing base:\n%s", r)
		}
	})
	t.Run("not comparing", func(t *testing.T) {
		t.Parallel()
		// Commands that read one build keep working without a base,
		// the single-environment run types (row-count, profile) included.
		r := ripple(t, "--target-base-path", "no-such-base", "get-model", "customers", "--json")
		if r.code != 0 {
			t.Fatalf("get-model without a base:\n%s", r)
		}
		rc := rippleJSON(t, "--target-base-path", "no-such-base", "row-count", "customers")
		if integer(t, rc, "customers", "curr") != 2000 || str(t, rc, "customers", "curr_meta", "status") != "ok" {
			t.Errorf("row-count customers = %v, want curr 2000", rc["customers"])
		}
		prof := rippleJSON(t, "--target-base-path", "no-such-base", "profile", "customers", "--columns", "customer_id")
		if got := fmt.Sprint(get(t, prof, "current", "data")); got != "[[customer_id BIGINT 2000 1 1 2000 true 1 2000 1000.5 1000.5]]" {
			t.Errorf("profile customers.customer_id = %s", got)
		}
	})
}
