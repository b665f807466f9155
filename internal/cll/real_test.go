package cll

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/testfixtures"
)

// TestRealProjects runs project lineage over every real manifest with
// compiled SQL and reports how much of it stays opaque, and why.
func TestRealProjects(t *testing.T) {
	realFixtures := testfixtures.RealRoot(t)
	var dirs []string
	err := filepath.WalkDir(realFixtures, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "manifest.json" {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	ctx := context.Background()
	total, opaque, edges, notExact, unmatched := 0, 0, 0, 0, 0
	reasons := map[string]int{}
	for _, dir := range dirs {
		env, err := dbt.LoadEnv(ctx, dir, "current", "dbt compile")
		if err != nil {
			t.Logf("%s: skipped: %v", dir, err)
			continue
		}
		compiled := 0
		for _, n := range env.Manifest.Nodes {
			if n.ResourceType == dbt.Model && n.CompiledCode != "" {
				compiled++
			}
		}
		if compiled == 0 {
			continue
		}
		pl, err := AnalyzeProject(ctx, env, NewCache())
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		rel, _ := filepath.Rel(realFixtures, dir)
		t.Logf("%-60s models=%3d opaque=%d", rel, pl.Stats.Models, pl.Stats.Opaque)
		for id, ml := range pl.Models {
			total++
			unmatched += len(ml.Unmatched)
			if len(ml.Unmatched) > 0 {
				t.Logf("  unmatched in %s: %v", id, ml.Unmatched)
			}
			for _, c := range ml.Columns {
				for _, d := range c.Deps {
					edges++
					if d.Confidence != Exact {
						notExact++
					}
				}
			}
			if ml.Opaque {
				opaque++
				reasons[reasonClass(ml.OpaqueReason)]++
				t.Logf("  opaque %s: %s", id, ml.OpaqueReason)
			}
		}
	}
	if total == 0 {
		t.Fatal("no manifest with compiled SQL found under testdata/real")
	}
	var rs []string
	for r, n := range reasons {
		rs = append(rs, r+"="+strconv.Itoa(n))
	}
	sort.Strings(rs)
	share := 100 * float64(opaque) / float64(total)
	t.Logf("real projects: %d models, %d opaque (%.1f%%) reasons: %s; %d column edges, %d not exact; %d unmatched relations",
		total, opaque, share, strings.Join(rs, ", "), edges, notExact, unmatched)
	if share >= 2 {
		t.Errorf("opaque share %.1f%% is above the 2%% target", share)
	}
}
