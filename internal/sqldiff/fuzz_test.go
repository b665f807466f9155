package sqldiff

import (
	"testing"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

var fuzzDialects = []string{"duckdb", "postgres", "snowflake", "bigquery", "databricks", "redshift", "trino"}

// FuzzDiff: the diff of any parseable query with itself is cosmetic, and
// no pair of inputs panics or reports an internal error.
func FuzzDiff(f *testing.F) {
	for i, c := range cases {
		f.Add(c.base, c.current, uint8(i))
	}
	f.Fuzz(func(t *testing.T, a, b string, di uint8) {
		d := fuzzDialects[int(di)%len(fuzzDialects)]

		_, errA := sqlparse.Parse(sqlparse.LookupDialect(d), a)
		self := Diff(d, a, a)
		if errA == nil && (self.Error != nil || !self.Cosmetic || len(self.Changes) != 0) {
			t.Fatalf("%s: diff of %q with itself is not cosmetic: %+v %+v", d, a, self, self.Error)
		}
		if errA != nil && (self.Error == nil || self.Changes != nil) {
			t.Fatalf("%s: %q does not parse (%v) but the diff is %+v", d, a, errA, self)
		}
		_, errB := sqlparse.Parse(sqlparse.LookupDialect(d), b)
		r := Diff(d, a, b)
		if errA == nil && errB == nil && r.Error != nil {
			t.Fatalf("%s: %q → %q: %s", d, a, b, r.Error.Message)
		}
		_ = r.Summary()
	})
}
