package cll

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// familyCase is a case of testdata/families: the corpus format
// (testdata/cll-corpus/README.md) with stricter expectations. Deps and row
// deps must equal the expected sets exactly; outputs, when given, is the
// exact ordered list of output names; confidence gives the confidence of
// some deps; opaque whether the result is opaque (default false); error
// the exact error of SQL that must be refused.
type familyCase struct {
	ID      string          `json:"id"`
	Dialect string          `json:"dialect"`
	Schema  json.RawMessage `json:"schema"`
	SQL     string          `json:"sql"`
	Expect  struct {
		Columns map[string]struct {
			Deps []string `json:"deps"`
			Kind string   `json:"kind"`
		} `json:"columns"`
		RowDeps    []string                     `json:"row_deps"`
		Outputs    []string                     `json:"outputs"`
		Confidence map[string]map[string]string `json:"confidence"`
		Opaque     bool                         `json:"opaque"`
		// Error, when given, is the exact error the SQL must be refused
		// with (a syntax error at its position).
		Error string `json:"error"`
	} `json:"expect"`
}

// TestFamilies replays the cases written for issue #20's families of SQL
// (PIVOT/UNPIVOT, USING/NATURAL chains, SEMI/ANTI joins, whole rows and
// count(*), DuckDB COLUMNS, BigQuery SELECT AS STRUCT/VALUE, ambiguous
// names), one file per family, in every dialect that has the construct.
func TestFamilies(t *testing.T) {
	files, err := filepath.Glob("testdata/families/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no family cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".jsonl"), func(t *testing.T) {
			for _, c := range readFamily(t, file) {
				t.Run(c.ID, func(t *testing.T) { checkFamilyCase(t, c) })
			}
		})
	}
}

func readFamily(t *testing.T, file string) []familyCase {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []familyCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c familyCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func normSet(ds []string) []string {
	out := make([]string, 0, len(ds))
	for _, d := range ds {
		out = append(out, normName(d))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func checkFamilyCase(t *testing.T, c familyCase) {
	schema, err := orderedSchema(c.Schema)
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	ql, err := AnalyzeSQL(c.Dialect, c.SQL, schema)
	if c.Expect.Error != "" {
		if err == nil || err.Error() != c.Expect.Error {
			t.Fatalf("%s: error %v, want %s", c.SQL, err, c.Expect.Error)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", c.SQL, err)
	}
	if ql.Opaque != c.Expect.Opaque {
		t.Errorf("opaque = %v (%s), want %v", ql.Opaque, ql.OpaqueReason, c.Expect.Opaque)
	}
	byName := map[string]*OutputColumn{}
	var names []string
	for i := range ql.Columns {
		n := normName(ql.Columns[i].Name)
		names = append(names, n)
		if _, dup := byName[n]; !dup {
			byName[n] = &ql.Columns[i]
		}
	}
	if c.Expect.Outputs != nil {
		want := make([]string, 0, len(c.Expect.Outputs))
		for _, o := range c.Expect.Outputs {
			want = append(want, normName(o))
		}
		if !slices.Equal(names, want) {
			t.Errorf("outputs %v, want %v", names, want)
		}
	}
	shape := CorpusShape(ql)
	for name, exp := range c.Expect.Columns {
		oc := byName[normName(name)]
		if oc == nil {
			t.Errorf("no output %s (outputs %v)", name, names)
			continue
		}
		var got []string
		for _, d := range oc.Deps {
			got = append(got, d.String())
		}
		if g, w := normSet(got), normSet(exp.Deps); !slices.Equal(g, w) {
			t.Errorf("%s: deps %v, want %v", name, g, w)
		}
		if exp.Kind != "" {
			if k := shape.Columns[oc.Name].Kind; k != exp.Kind {
				t.Errorf("%s: kind %s, want %s", name, k, exp.Kind)
			}
		}
		for dep, conf := range c.Expect.Confidence[name] {
			found := false
			for _, d := range oc.Deps {
				if normName(d.String()) == normName(dep) {
					found = true
					if string(d.Confidence) != conf {
						t.Errorf("%s: %s confidence %s, want %s", name, dep, d.Confidence, conf)
					}
				}
			}
			if !found {
				t.Errorf("%s: no dep %s for its confidence", name, dep)
			}
		}
	}
	if c.Expect.RowDeps != nil {
		var got []string
		for _, d := range ql.RowDeps {
			got = append(got, d.String())
		}
		if g, w := normSet(got), normSet(c.Expect.RowDeps); !slices.Equal(g, w) {
			t.Errorf("row deps %v, want %v", g, w)
		}
	}
}
