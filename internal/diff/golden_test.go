package diff

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/warehouse"

	"github.com/ripple-data/ripple/internal/golden"
)

// TestGoldenSQL pins the SQL every operation generates, per dialect.
func TestGoldenSQL(t *testing.T) {
	for _, name := range dialect.Supported() {
		t.Run(name, func(t *testing.T) {
			d := sqlDialect{mustDialect(t, name)}
			rel := func(schema, table string) string { return d.QuoteRelation("analytics", schema, table) }
			base, cur := rel("base", "orders"), rel("current", "orders")
			p := &diffPlan{
				dialect: d, baseRel: base, curRel: cur, keyNames: []string{"ID", "region"},
				keys: []diffColumn{
					{Name: "ID", Base: "ID", Current: "ID", Kind: dialect.KindInteger, Key: true},
					{Name: "region", Base: "region", Current: "region", Kind: dialect.KindString, Key: true},
				},
			}
			p.cols = append(p.cols, p.keys...)
			p.cols = append(p.cols,
				diffColumn{Name: "AMOUNT", Base: "AMOUNT", Current: "AMOUNT", Kind: dialect.KindFloat},
				diffColumn{Name: "column_name", Base: "column_name", Current: "column_name", Kind: dialect.KindString},
				diffColumn{Name: "status", Base: "STATUS", Current: "status", Kind: dialect.KindOther, typeMismatch: true},
				diffColumn{Name: "ordered_at", Base: "ordered_at", Current: "ordered_at", Kind: dialect.KindDate})
			amount := diffColumn{Name: "AMOUNT", Base: "AMOUNT", Current: "AMOUNT", Kind: dialect.KindFloat}
			day := diffColumn{Name: "ordered_at", Base: "ordered_at", Current: "ordered_at", Kind: dialect.KindDate}
			cols := []warehouse.Column{{Name: "ID", Type: "NUMBER(38,0)"}, {Name: "AMOUNT", Type: "FLOAT"}, {Name: "column_name", Type: "VARCHAR"},
				{Name: "ordered_at", Type: "DATE"}, {Name: "is_paid", Type: "BOOLEAN"}, {Name: "payload", Type: "VARIANT"}}
			sections := []struct{ name, sql string }{
				{"row_count", "SELECT COUNT(*) AS row_count FROM " + base},
				{"value_diff.side_stats", sideStatsSQL(p)},
				{"value_diff.key_check", keyCheckSQL(d, base, p.keyCols(Base))},
				{"value_diff", valueDiffSQL(p)},
				{"value_diff.duplicate_keys", duplicateKeysSQL(d, cur, p.keyCols(Current))},
				{"value_diff_detail", valueDiffDetailSQL(p)},
				{"query_diff.summary", setDiffSummarySQL(d, "SELECT * FROM "+base, "SELECT * FROM "+cur, []string{"ID"})},
				{"profile", profileSQL(d, cur, cols)},
				{"top_k", topKSQL(d, base, cur, diffColumn{Name: "column_name", Base: "column_name", Current: "column_name", Kind: dialect.KindString}, 10)},
				{"top_k.counts", countsSQL(d, base, cur, amount)},
				{"histogram.stats", histogramStatsSQL(d, base, cur, amount)},
				{"histogram.numeric", numericBinsSQL(d, base, cur, amount, -2.5, 0.125)},
				{"histogram.date.stats", histogramStatsSQL(d, base, cur, day)},
				{"histogram.date", dateBinsSQL(d, base, cur, day, "month")},
			}
			var b strings.Builder
			for _, s := range sections {
				b.WriteString("-- " + s.name + "\n" + s.sql + ";\n\n")
			}
			golden.Assert(t, filepath.Join("testdata", "sql", name+".golden"), []byte(b.String()))
		})
	}
}
