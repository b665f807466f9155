package cll

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/sqlparse"
)

// TestNonReservedKeywordsResolve: every keyword a dialect does not reserve
// is a column, a CTE, a qualifier and an output name through the resolver
// too (issue #26), in every dialect.
func TestNonReservedKeywordsResolve(t *testing.T) {
	for _, name := range dialect.Supported() {
		d := sqlparse.LookupDialect(name)
		n := 0
		for _, w := range sqlparse.Keywords() {
			if d.IsReserved(w) {
				continue
			}
			n++
			lw := strings.ToLower(w)
			raw, _ := json.Marshal(map[string]map[string]string{"t": {lw: "", "id": ""}})
			schema, err := orderedSchema(raw)
			if err != nil {
				t.Fatal(err)
			}
			sql := fmt.Sprintf("with %[1]s as (select id, %[1]s from t) select %[1]s.%[1]s as %[1]s, x.id from %[1]s join t as x on x.id = %[1]s.id", lw)
			ql, err := AnalyzeSQL(name, sql, schema)
			if err != nil || ql.Opaque {
				t.Errorf("%s: %s: %q: %v %s", name, w, sql, err, ql.OpaqueReason)
				continue
			}
			if len(ql.Columns) != 2 || normName(ql.Columns[0].Name) != normName(lw) {
				t.Errorf("%s: %s: outputs %v", name, w, ql.Columns)
				continue
			}
			var deps []string
			for _, dp := range ql.Columns[0].Deps {
				deps = append(deps, normName(dp.String()))
			}
			if want := []string{normName("t." + lw)}; !slices.Equal(deps, want) {
				t.Errorf("%s: %s: deps %v, want %v", name, w, deps, want)
			}
		}
		if n < 100 {
			t.Errorf("%s: only %d non-reserved keywords", name, n)
		}
	}
}
