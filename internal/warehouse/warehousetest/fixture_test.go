package warehousetest

import (
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/golden"
)

// TestFixtureSQLPerDialect pins the fixture each live suite writes, one
// block per supported adapter, so a change to a warehouse's spelling is
// reviewed as SQL.
func TestFixtureSQLPerDialect(t *testing.T) {
	var b strings.Builder
	for _, a := range dialect.Supported() {
		stmts, err := FixtureSQL(a, "ripple_ci")
		if err != nil {
			t.Fatal(err)
		}
		if len(stmts) != 4 {
			t.Fatalf("%s: %d statements, want 4", a, len(stmts))
		}
		b.WriteString("-- " + a + "\n" + strings.Join(stmts, ";\n") + ";\n\n")
	}
	if _, err := FixtureSQL("nosuch", "s"); err == nil {
		t.Error("an unknown adapter has no fixture")
	}
	golden.Assert(t, "testdata/fixture_sql.golden.sql", []byte(b.String()))
}
