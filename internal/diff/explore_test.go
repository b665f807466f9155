package diff

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/warehouse"
)

func TestExplore(t *testing.T) {
	if os.Getenv("RIPPLE_EXPLORE") == "" {
		t.Skip()
	}
	b := &testing.B{}
	_ = b
	env := benchEnvT(t, 1000000)
	ctx := context.Background()
	p, err := env.planValueDiff(ctx, "wide", Keys{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := p.dialect
	run := func(name, q string) {
		start := time.Now()
		if _, err := env.Conn.Query(ctx, q, warehouse.QueryOptions{Limit: 1}); err != nil {
			t.Fatal(name, err)
		}
		t.Logf("%-30s %v", name, time.Since(start))
	}

	run("floor", `SELECT COUNT(*) FROM "memory"."base"."wide" b FULL OUTER JOIN "memory"."current"."wide" c ON b."id" = c."id"`)

	var cols []string
	for _, c := range p.cols[1:] {
		cols = append(cols, "max(b."+d.q(c.Base)+"), max(c."+d.q(c.Current)+")")
	}
	run("join payload max", `SELECT `+strings.Join(cols, ",")+` FROM "memory"."base"."wide" b FULL OUTER JOIN "memory"."current"."wide" c ON b."id" = c."id"`)
	var hs []string
	for _, c := range p.cols[1:] {
		hs = append(hs, d.q(c.Base))
	}
	var codes []string
	for i, col := range p.cols[1:] {
		bc, cc := d.qual("b", col.Base), d.qual("c", col.Current)
		codes = append(codes, fmt.Sprintf("(CASE WHEN %s IS NOT DISTINCT FROM %s THEN 0 WHEN %s IS NULL THEN 2 WHEN %s IS NULL THEN 3 ELSE 1 END) * %d", bc, cc, bc, cc, int64(1)<<(2*i)))
	}
	run("code groupby", `SELECT code, COUNT(*) FROM (SELECT (b.id IS NULL)::INT + 2*(c.id IS NULL)::INT AS side, `+strings.Join(codes, " + ")+` AS code FROM "memory"."base"."wide" b FULL OUTER JOIN "memory"."current"."wide" c ON b."id" = c."id") GROUP BY side, code`)
	run("floor 3", `SELECT COUNT(*) FROM "memory"."base"."wide" b FULL OUTER JOIN "memory"."current"."wide" c ON b."id" = c."id"`)
	run("join payload max 2", `SELECT `+strings.Join(cols, ",")+` FROM "memory"."base"."wide" b FULL OUTER JOIN "memory"."current"."wide" c ON b."id" = c."id"`)
	run("code groupby 2", `SELECT code, COUNT(*) FROM (SELECT (b.id IS NULL)::INT + 2*(c.id IS NULL)::INT AS side, `+strings.Join(codes, " + ")+` AS code FROM "memory"."base"."wide" b FULL OUTER JOIN "memory"."current"."wide" c ON b."id" = c."id") GROUP BY side, code`)
}
