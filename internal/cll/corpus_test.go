package cll

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// corpusPath is the vendored dev corpus (see testdata/cll-corpus/VENDORED.md).
const corpusPath = "testdata/cll-corpus/dev.jsonl"

type corpusCase struct {
	ID      string                       `json:"id"`
	Dialect string                       `json:"dialect"`
	Schema  map[string]map[string]string `json:"schema"`
	SQL     string                       `json:"sql"`
	Expect  struct {
		Columns map[string]struct {
			Deps []string `json:"deps"`
			Kind string   `json:"kind"`
			Pos  *int     `json:"pos"`
		} `json:"columns"`
		RowDeps      []string `json:"row_deps"`
		RowDepsMatch string   `json:"row_deps_match"`
	} `json:"expect"`
}

func normName(s string) string {
	return strings.ToLower(strings.NewReplacer(`"`, "", "`", "", "[", "", "]", "").Replace(s))
}

// depMatch implements the README rule: every expected dep matches a
// produced dep equal to it or ending in "."+it, and every produced dep is
// used by some expected dep.
func depMatch(exp, prod []string) bool {
	ps := map[string]bool{}
	for _, p := range prod {
		ps[normName(p)] = true
	}
	used := map[string]bool{}
	for _, e := range exp {
		e = normName(e)
		found := false
		for p := range ps {
			if p == e || strings.HasSuffix(p, "."+e) {
				used[p] = true
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return len(used) == len(ps)
}

// orderedSchema decodes a schema object keeping column order.
func orderedSchema(raw json.RawMessage) (Schema, error) {
	out := Schema{}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	for dec.More() {
		tk, err := dec.Token()
		if err != nil {
			return nil, err
		}
		table := tk.(string)
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		var cols []string
		for dec.More() {
			ck, err := dec.Token()
			if err != nil {
				return nil, err
			}
			cols = append(cols, ck.(string))
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		out[table] = cols
	}
	return out, nil
}

type tally struct{ ok, tot int }

func (t tally) pct() float64 {
	if t.tot == 0 {
		return 0
	}
	return 100 * float64(t.ok) / float64(t.tot)
}

// corpusScore is the outcome of scoring a corpus file by the corpus
// README's rules (those of its score.py).
type corpusScore struct {
	all, kind, rows tally
	errored         int
	report          string
}

// perfect reports whether every asserted column, kind and row-dep set is right.
func (s corpusScore) perfect() bool {
	return s.errored == 0 && s.all.ok == s.all.tot && s.kind.ok == s.kind.tot && s.rows.ok == s.rows.tot
}

// scoreCorpus scores AnalyzeSQL on a corpus file. Misses are logged when
// CORPUS_VERBOSE is set, or always when verbose is true.
func scoreCorpus(t *testing.T, path string, verbose bool) corpusScore {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4<<20), 4<<20)
	groups := map[string]*tally{}
	add := func(key string, ok, tot int) {
		g := groups[key]
		if g == nil {
			g = &tally{}
			groups[key] = g
		}
		g.ok += ok
		g.tot += tot
	}
	var res corpusScore
	verbose = verbose || os.Getenv("CORPUS_VERBOSE") != ""
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("bad corpus line: %v", err)
		}
		var rawCase struct {
			Schema json.RawMessage `json:"schema"`
		}
		_ = json.Unmarshal(sc.Bytes(), &rawCase)
		schema, err := orderedSchema(rawCase.Schema)
		if err != nil {
			t.Fatalf("%s: schema: %v", c.ID, err)
		}
		origin := c.ID[:strings.LastIndex(c.ID, "-")]
		ql, err := AnalyzeSQL(c.Dialect, c.SQL, schema)
		if err != nil && c.Dialect == "generic" {
			ql, err = AnalyzeSQL("duckdb", c.SQL, schema)
		}
		n := len(c.Expect.Columns)
		res.all.tot += n
		if err != nil {
			res.errored++
			add("origin:"+origin, 0, n)
			add("dialect:"+c.Dialect, 0, n)
			if verbose {
				t.Logf("%s: error %v", c.ID, err)
			}
			continue
		}
		shape := CorpusShape(ql)
		pmap := map[string]CorpusColumn{}
		for _, name := range shape.Names {
			pmap[normName(name)] = shape.Columns[name]
		}
		okCols := 0
		names := make([]string, 0, n)
		for name := range c.Expect.Columns {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			exp := c.Expect.Columns[name]
			got, found := pmap[normName(name)]
			if !found && exp.Pos != nil && *exp.Pos < len(shape.Names) {
				got, found = shape.Columns[shape.Names[*exp.Pos]], true
			}
			good := found && depMatch(exp.Deps, got.Deps)
			if good {
				okCols++
			} else if verbose {
				t.Logf("%s: column %s: want %v, got %v (found=%v)", c.ID, name, exp.Deps, got.Deps, found)
			}
			if exp.Kind != "" {
				res.kind.tot++
				if found && got.Kind == exp.Kind {
					res.kind.ok++
				} else if verbose {
					t.Logf("%s: column %s: kind want %s got %s", c.ID, name, exp.Kind, got.Kind)
				}
			}
		}
		res.all.ok += okCols
		add("origin:"+origin, okCols, n)
		add("dialect:"+c.Dialect, okCols, n)
		if c.Expect.RowDeps != nil {
			res.rows.tot++
			var good bool
			if c.Expect.RowDepsMatch == "subset" {
				good = true
				for _, e := range c.Expect.RowDeps {
					hit := false
					for _, p := range shape.RowDeps {
						if normName(p) == normName(e) || strings.HasSuffix(normName(p), "."+normName(e)) {
							hit = true
						}
					}
					good = good && hit
				}
			} else {
				good = depMatch(c.Expect.RowDeps, shape.RowDeps)
			}
			if good {
				res.rows.ok++
			} else if verbose {
				t.Logf("%s: row_deps want %v got %v", c.ID, c.Expect.RowDeps, shape.RowDeps)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var report strings.Builder
	for _, k := range keys {
		g := groups[k]
		fmt.Fprintf(&report, "%-24s %4d/%4d  %5.1f%%\n", k, g.ok, g.tot, g.pct())
	}
	fmt.Fprintf(&report, "kind accuracy %d/%d; row_deps %d/%d; errored cases %d\n", res.kind.ok, res.kind.tot, res.rows.ok, res.rows.tot, res.errored)
	fmt.Fprintf(&report, "column lineage: %.1f%% of %d asserted columns right (%d cases errored)\n", res.all.pct(), res.all.tot, res.errored)
	res.report = report.String()
	return res
}

// TestCorpus scores the dev corpus: every asserted column, kind and row-dep
// set must be right (the score is 100% and stays so).
func TestCorpus(t *testing.T) {
	res := scoreCorpus(t, corpusPath, false)
	t.Log("\n" + res.report)
	if !res.perfect() {
		t.Errorf("dev corpus is no longer 100%% (CORPUS_VERBOSE=1 lists the misses):\n%s", res.report)
	}
}

// TestVendoredCorpusIsUnchanged fails when dev.jsonl no longer hashes to
// the sha256 VENDORED.md records: the copy must stay byte for byte the
// origin's (its NOTICE lists the only changes made when deriving it), so a
// new copy updates both together.
func TestVendoredCorpusIsUnchanged(t *testing.T) {
	vendored, err := os.ReadFile(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	notes, err := os.ReadFile("testdata/cll-corpus/VENDORED.md")
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "sha256 of dev.jsonl: "
	_, rest, ok := strings.Cut(string(notes), prefix)
	if !ok {
		t.Fatalf("VENDORED.md has no %q line", prefix)
	}
	want := strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0])
	sum := sha256.Sum256(vendored)
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("%s hashes to %s, VENDORED.md records %s: record the new copy's hash there", corpusPath, got, want)
	}
}
