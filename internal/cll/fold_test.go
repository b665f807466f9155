package cll

import (
	"fmt"
	"strings"
	"testing"
)

func TestEqualFoldMatchesStrings(t *testing.T) {
	words := []string{"", "a", "A", "id", "ID", "Id", "c1", "C1", "c10", "src_0", "SRC_0", "src_1", "k", "K", "\u212a", "\u212aelvin", "kelvin",
		"ß", "SS", "straße", "STRASSE", "é", "É", "aé", "AÉ", "ſ", "s", "S", "_", "@", "`", "[", "{", "a\u0301"}
	for _, a := range words {
		for _, b := range words {
			if got, want := equalFold(a, b), strings.EqualFold(a, b); got != want {
				t.Errorf("equalFold(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}

// TestWideLookupsMatchScan: the name index of wide relations and models
// finds exactly what a scan with equalFold finds (first match, ASCII case,
// non-ASCII names, misses).
func TestWideLookupsMatchScan(t *testing.T) {
	for _, extra := range [][]string{nil, {"\u212aelvin", "straße"}} {
		var names []string
		for i := 0; i < 2*indexMin; i++ {
			names = append(names, fmt.Sprintf("Col_%d", i))
		}
		names = append(names, "col_3", "DUP", "dup")
		names = append(names, extra...)
		rel := &relation{}
		ml := &ModelLineage{}
		for i, n := range names {
			rel.cols = append(rel.cols, rcol{name: n, l: &lin{orig: fmt.Sprint(i)}})
			ml.Columns = append(ml.Columns, ModelColumn{Name: n, Digest: Digest(i)})
		}
		for _, probe := range []string{"col_0", "COL_3", "Col_127", "dup", "Dup", "kelvin", "STRASSE", "straße", "missing", ""} {
			want := -1
			for i, n := range names {
				if equalFold(n, probe) {
					want = i
					break
				}
			}
			got := -1
			if l, ok := rel.find(probe); ok {
				fmt.Sscan(l.orig, &got)
			}
			if got != want {
				t.Errorf("relation.find(%q) = %d, want %d (extra %v)", probe, got, want, extra)
			}
			got = -1
			if c, ok := ml.Column(probe); ok {
				got = int(c.Digest)
			}
			if got != want {
				t.Errorf("ModelLineage.Column(%q) = %d, want %d (extra %v)", probe, got, want, extra)
			}
		}
	}
}

// TestDedupLongListsMatchScan: long dep lists dedup by map with the scan's
// result: first occurrence order, case-insensitive, best confidence kept.
func TestDedupLongListsMatchScan(t *testing.T) {
	var ds []dep
	for i := 0; i < 3*indexMin; i++ {
		ds = append(ds, dep{table: "T", col: fmt.Sprintf("c%d", i%(indexMin+7)), conf: []Confidence{Unknown, Inferred, Exact}[i%3]})
	}
	ds = append(ds, dep{table: "t", col: "C1", conf: Exact})
	scan := func(ds []dep) []dep {
		var out []dep
	next:
		for _, d := range ds {
			for i := range out {
				if equalFold(out[i].col, d.col) && equalFold(out[i].table, d.table) {
					if d.conf == Exact || d.conf == Inferred && out[i].conf == Unknown {
						out[i].conf = d.conf
					}
					continue next
				}
			}
			out = append(out, d)
		}
		return out
	}
	if got, want := dedupDeps(ds), scan(ds); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("dedup:\n got %v\nwant %v", got, want)
	}
	unique := ds[:indexMin+7]
	if got := dedupDeps(unique); &got[0] != &unique[0] || len(got) != len(unique) {
		t.Fatal("a list without duplicates is not returned as it is")
	}
}
