package ops

import (
	"context"
	"fmt"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
)

func TestMemoEvictsLeastRecentlyUsed(t *testing.T) {
	m := newMemo(2)
	m.put("a", 1)
	m.put("b", 2)
	if v, ok := m.get("a"); !ok || v != 1 {
		t.Fatalf("a: %v %v", v, ok)
	}
	m.put("c", 3) // b is the least recently used
	if _, ok := m.get("b"); ok {
		t.Error("b should have been evicted")
	}
	for k, want := range map[string]int{"a": 1, "c": 3} {
		if v, ok := m.get(k); !ok || v != want {
			t.Errorf("%s: %v %v, want %d", k, v, ok, want)
		}
	}
	m.put("a", 10) // a replaced, not added
	if v, _ := m.get("a"); m.len() != 2 || v != 10 {
		t.Errorf("len %d, a %v", m.len(), v)
	}
	m.clear()
	if _, ok := m.get("a"); ok || m.len() != 0 {
		t.Error("clear left entries")
	}
}

// TestSessionCacheIsBounded: a long-running server asked about many
// columns keeps at most maxCachedEntries results, and the column lineage
// every call reads stays cached.
func TestSessionCacheIsBounded(t *testing.T) {
	dir := t.TempDir()
	const n = maxCachedEntries + 44
	writeWideProject(t, dir, n)
	s := NewSession(Config{Paths: dbt.Paths{ProjectDir: dir}})
	for i := range n {
		r := callOp[CLLResult](t, s, "get_cll", map[string]any{"node_id": "stg_wide", "column": fmt.Sprintf("c%d", i)})
		if len(r.Columns) != 3 {
			t.Fatalf("c%d: %d columns", i, len(r.Columns))
		}
	}
	s.mu.Lock()
	size := s.caches.len()
	_, lineage := s.caches.get("cll.current")
	_, first := s.caches.get(`op:get_cll:{"node_id":"stg_wide","column":"c0"}`)
	_, last := s.caches.get(fmt.Sprintf(`op:get_cll:{"node_id":"stg_wide","column":"c%d"}`, n-1))
	s.mu.Unlock()
	if size != maxCachedEntries || !lineage || first || !last {
		t.Errorf("entries %d (want %d), column lineage kept %v, oldest result kept %v, newest kept %v", size, maxCachedEntries, lineage, first, last)
	}
	// A cached value is built once.
	builds := 0
	for range 2 {
		if _, err := s.Cached(context.Background(), "probe", func(*dbt.Project) (any, error) { builds++; return builds, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if builds != 1 {
		t.Errorf("a cached value was built %d times", builds)
	}
}
