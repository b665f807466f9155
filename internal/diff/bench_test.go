package diff

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/cputime"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// benchRows is the benchmark table size; RIPPLE_BENCH_ROWS overrides it
// (e.g. RIPPLE_BENCH_ROWS=1000000 for a quick run).
func benchRows(b *testing.B) int {
	n := 10_000_000
	if s := os.Getenv("RIPPLE_BENCH_ROWS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			b.Fatalf("RIPPLE_BENCH_ROWS=%q is not a positive integer", s)
		}
		n = v
	}
	return n
}

const benchCols = 19 // plus the key: 20 columns

// benchEnv creates base.wide and current.wide: n rows × 20 columns (id plus
// integers, decimals, doubles, strings and dates), where ~1% of current
// rows differ in one column each.
func benchEnv(b *testing.B, n int) Env { return benchEnvT(b, n) }

func benchEnvT(b testing.TB, n int) Env {
	var bcols, ccols []string
	for i := 1; i <= benchCols; i++ {
		var expr string
		switch i % 4 {
		case 0:
			expr = fmt.Sprintf("(i * %d) %% 1000003", i+7)
		case 1:
			// Money-like columns as dbt models usually type them. Wider
			// decimals (DECIMAL(38,x), what SUM() of a decimal returns)
			// are stored as 128-bit integers, which DuckDB 1.5 scans ~30×
			// slower than these: every plan pays that scan once per column
			// and side, so it swamps all the ratios below.
			typ := "DECIMAL(18,2)"
			if i%8 == 1 {
				typ = "DOUBLE"
			}
			expr = fmt.Sprintf("CAST((i %% 9973) * %d.5 AS %s)", i, typ)
		case 2:
			expr = fmt.Sprintf("'v' || ((i * %d) %% 100003)::VARCHAR", i)
		case 3:
			expr = fmt.Sprintf("DATE '2020-01-01' + CAST((i * %d) %% 2000 AS INTEGER)", i)
		}
		col := fmt.Sprintf("c%02d", i)
		bcols = append(bcols, expr+" AS "+col)
		// 1% of rows change, each in the column chosen by i % 19.
		cexpr := expr
		switch i % 4 {
		case 0, 1:
			cexpr = fmt.Sprintf("CASE WHEN i %% 100 = 7 AND i %% %d = %d THEN (%s) + 1 ELSE %s END", benchCols, i-1, expr, expr)
		case 2:
			cexpr = fmt.Sprintf("CASE WHEN i %% 100 = 7 AND i %% %d = %d THEN (%s) || 'x' ELSE %s END", benchCols, i-1, expr, expr)
		case 3:
			cexpr = fmt.Sprintf("CASE WHEN i %% 100 = 7 AND i %% %d = %d THEN (%s) + 1 ELSE %s END", benchCols, i-1, expr, expr)
		}
		ccols = append(ccols, cexpr+" AS "+col)
	}
	conn := memDuckDB(b,
		"CREATE SCHEMA base", "CREATE SCHEMA current",
		fmt.Sprintf("CREATE TABLE base.wide AS SELECT i AS id, %s FROM range(%d) t(i)", strings.Join(bcols, ", "), n),
		fmt.Sprintf("CREATE TABLE current.wide AS SELECT i AS id, %s FROM range(%d) t(i)", strings.Join(ccols, ", "), n),
	)
	return Env{Project: handProject(b, "memory", "base", "current", model{name: "wide"}), Conn: conn, Dialect: mustDialect(b, "duckdb")}
}

// BenchmarkValueDiff measures value_diff against the floor (count(*) of
// the FULL OUTER JOIN on the key) and a one-query-per-column plan, all on
// the same tables. Compare ns/op of the three sub-benchmarks.
func BenchmarkValueDiff(b *testing.B) {
	n := benchRows(b)
	env := benchEnv(b, n)
	ctx := context.Background()
	in := ValueDiffInput{Model: "wide", PrimaryKey: Keys{"id"}}

	// Sanity: the generated change rate.
	res, err := ValueDiff(ctx, env, in)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("rows=%d total=%d added=%d removed=%d changed=%d (%.2f%%)", n, res.Summary.Total, res.Summary.Added,
		res.Summary.Removed, res.Summary.Changed, 100*float64(res.Summary.Changed)/float64(res.Summary.Total))

	floorSQL := `SELECT COUNT(*) FROM "memory"."base"."wide" b FULL OUTER JOIN "memory"."current"."wide" c ON b."id" = c."id"`
	d := sqlDialect{env.Dialect}
	var perColumnSQL []string
	for i := 1; i <= benchCols; i++ {
		col := d.q(fmt.Sprintf("c%02d", i))
		perColumnSQL = append(perColumnSQL, `SELECT `+d.CountIf(`b."id" IS NULL`)+`, `+d.CountIf(`c."id" IS NULL`)+`, `+
			d.CountIf(`b."id" IS NOT NULL AND c."id" IS NOT NULL AND `+d.Distinct("b."+col, "c."+col))+`, `+
			d.CountIf(`b."id" IS NOT NULL AND c."id" IS NOT NULL AND b.`+col+` IS NULL AND c.`+col+` IS NOT NULL`)+`, `+
			d.CountIf(`b."id" IS NOT NULL AND c."id" IS NOT NULL AND b.`+col+` IS NOT NULL AND c.`+col+` IS NULL`)+
			` FROM "memory"."base"."wide" b FULL OUTER JOIN "memory"."current"."wide" c ON b."id" = c."id"`)
	}
	query := func(b *testing.B, q string) {
		if _, err := env.Conn.Query(ctx, q, warehouse.QueryOptions{Limit: 1}); err != nil {
			b.Fatal(err)
		}
	}
	valueDiff := func(b *testing.B) {
		if _, err := ValueDiff(ctx, env, in); err != nil {
			b.Fatal(err)
		}
	}
	perColumn := func(b *testing.B) {
		for _, q := range perColumnSQL {
			query(b, q)
		}
	}

	b.Run("value_diff", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			valueDiff(b)
		}
	})
	b.Run("floor_join_count", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			query(b, floorSQL)
		}
	})
	var payload []string
	for i := 1; i <= benchCols; i++ {
		payload = append(payload, fmt.Sprintf(`MAX(b."c%02d"), MAX(c."c%02d")`, i, i))
	}
	payloadSQL := `SELECT ` + strings.Join(payload, ", ") + ` FROM "memory"."base"."wide" b FULL OUTER JOIN "memory"."current"."wide" c ON b."id" = c."id"`
	// Context, not a target: the same join made to read every compared column.
	b.Run("join_reading_all_columns", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			query(b, payloadSQL)
		}
	})
	b.Run("per_column_queries", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			perColumn(b)
		}
	})
	// Context, not a target: only reading every compared column of both
	// tables, no join. No plan that compares values can cost less.
	var hashed []string
	for i := 1; i <= benchCols; i++ {
		hashed = append(hashed, fmt.Sprintf(`"c%02d"`, i))
	}
	readSQL := `SELECT (SELECT BIT_XOR(HASH(` + strings.Join(hashed, ", ") + `)) FROM "memory"."base"."wide"), ` +
		`(SELECT BIT_XOR(HASH(` + strings.Join(hashed, ", ") + `)) FROM "memory"."current"."wide")`
	// The machine may be shared: timing the plans back to back in each
	// iteration, in wall and in CPU time, makes their ratios robust to load
	// that drifts between the sub-benchmarks above.
	b.Run("interleaved_ratios", func(b *testing.B) {
		plans := []struct {
			name string
			run  func(*testing.B)
		}{
			{"value_diff", valueDiff},
			{"floor", func(b *testing.B) { query(b, floorSQL) }},
			{"per_column", perColumn},
			{"payload_join", func(b *testing.B) { query(b, payloadSQL) }},
			{"read_columns", func(b *testing.B) { query(b, readSQL) }},
		}
		wall := make([]time.Duration, len(plans))
		cpu := make([]time.Duration, len(plans))
		for b.Loop() {
			for i, p := range plans {
				c0, t0 := cputime.Now(), time.Now()
				p.run(b)
				wall[i] += time.Since(t0)
				cpu[i] += cputime.Now() - c0
			}
		}
		const vd, fl, pc, pl, rd = 0, 1, 2, 3, 4
		for i, p := range plans {
			b.ReportMetric(wall[i].Seconds()/float64(b.N), p.name+"_s")
		}
		ratio := func(a, b time.Duration) float64 { return float64(a) / float64(b) }
		b.ReportMetric(ratio(wall[vd], wall[fl]), "x_floor")
		b.ReportMetric(ratio(cpu[vd], cpu[fl]), "x_floor_cpu")
		b.ReportMetric(ratio(wall[pc], wall[vd]), "x_faster_than_per_column")
		b.ReportMetric(ratio(cpu[pc], cpu[vd]), "x_faster_than_per_column_cpu")
		b.ReportMetric(ratio(cpu[vd], cpu[pl]), "x_payload_join_cpu")
		b.ReportMetric(ratio(cpu[rd], cpu[fl]), "read_columns_x_floor_cpu")
	})
}
