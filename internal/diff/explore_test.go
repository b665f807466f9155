package diff

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/warehouse"
)

func TestExplore(t *testing.T) {
	if os.Getenv("RIPPLE_EXPLORE") == "" {
		t.Skip()
	}
	env := benchEnvT(t, 2000000)
	ctx := context.Background()
	p, err := env.planValueDiff(ctx, "wide", Keys{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(name, q string) {
		start := time.Now()
		r, err := env.Conn.Query(ctx, q, warehouse.QueryOptions{Limit: 1})
		if err != nil {
			t.Fatal(name, err)
		}
		t.Logf("%-30s %v %v", name, time.Since(start), r.Rows[0][:min(4, len(r.Rows[0]))])
	}
	for i := 0; i < 3; i++ {
		run("floor", `SELECT COUNT(*) FROM "memory"."base"."wide" b FULL OUTER JOIN "memory"."current"."wide" c ON b."id" = c."id"`)
		p.fastEqual = false
		run("main", valueDiffSQL(p))
		p.fastEqual = true
		run("main fastEqual", valueDiffSQL(p))
		run("side stats", sideStatsSQL(p))
	}
}
