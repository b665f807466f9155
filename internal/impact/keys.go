package impact

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/diff"
)

// keyCandidate is a set of columns that may identify a model's rows, with
// where the claim comes from. Only a passing dbt test proves it; every
// other candidate is checked in the warehouse before it is used.
type keyCandidate struct {
	columns  []string
	source   string
	evidence string
	proven   bool
}

// maxKeyDepth bounds how far upstream a key is followed through lineage.
const maxKeyDepth = 8

// keyFinder discovers candidate keys from artifacts and SQL only.
type keyFinder struct {
	a       *analysis
	dialect string
	// upstream memoises the best structural key of upstream nodes.
	upstream map[string]*keyCandidate
}

func newKeyFinder(a *analysis) *keyFinder {
	return &keyFinder{a: a, dialect: a.cmp.Project.Current.Manifest.Metadata.AdapterType, upstream: map[string]*keyCandidate{}}
}

// candidates lists a model's candidate keys in the order they are tried:
// declared constraint / unique_key, unique tests, the SQL's grain, an
// upstream key passed through by column lineage, then a column named
// <model>_id or id. Candidates whose columns the catalogs show missing on
// either side are dropped, and each column set is listed once.
func (f *keyFinder) candidates(m *Model) []keyCandidate {
	p := f.a.cmp.Project
	cur, base := p.Current.Columns(m.UniqueID), p.Base.Columns(m.UniqueID)
	var out []keyCandidate
	seen := map[string]bool{}
	add := func(k keyCandidate) {
		cols, ok := spelled(k.columns, cur, base)
		sig := strings.ToLower(strings.Join(cols, "\x00"))
		if !ok || seen[sig] {
			return
		}
		seen[sig] = true
		k.columns = cols
		out = append(out, k)
	}
	for _, k := range p.Current.Manifest.KeyCandidates(m.UniqueID) {
		add(f.fromManifest(k))
	}
	if g := f.grain(m.UniqueID); g != nil {
		add(*g)
	}
	if k := f.lineageKey(m.UniqueID, 0); k != nil {
		add(*k)
	}
	for _, name := range nameCandidates(m.Name) {
		add(keyCandidate{columns: []string{name}, source: KeyFromName, evidence: "a column named " + name})
	}
	return out
}

// spelled maps key columns to the current catalog's spelling and checks
// they exist on both sides; a side without known columns cannot rule a
// candidate out (the warehouse check will).
func spelled(cols []string, cur, base []*dbt.CatalogColumn) ([]string, bool) {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c
		if len(cur) > 0 {
			found := false
			for _, cc := range cur {
				if strings.EqualFold(cc.Name, c) {
					out[i], found = cc.Name, true
					break
				}
			}
			if !found {
				return nil, false
			}
		}
		if len(base) > 0 {
			found := false
			for _, bc := range base {
				found = found || strings.EqualFold(bc.Name, c)
			}
			if !found {
				return nil, false
			}
		}
	}
	return out, len(out) > 0
}

func (f *keyFinder) fromManifest(k dbt.PrimaryKey) keyCandidate {
	c := keyCandidate{columns: k.Columns, source: KeyFromConstraint, evidence: k.Evidence}
	if k.Basis == dbt.KeyTested {
		c.source = KeyFromTest
		p := f.a.cmp.Project
		passed, known := p.Current.TestPassed(k.Test)
		if _, inBase := p.Base.Manifest.Node(k.Test); inBase && !p.SingleEnv {
			bp, bk := p.Base.TestPassed(k.Test)
			passed, known = passed && bp, known && bk
		}
		if passed && known {
			c.proven = true
			c.evidence += " (passed in run_results)"
		}
	}
	return c
}

// grain is the key the model's compiled SQL implies, if any.
func (f *keyFinder) grain(id string) *keyCandidate {
	n, ok := f.a.cmp.Project.Current.Manifest.Node(id)
	if !ok {
		return nil
	}
	g := sqlGrain(f.dialect, n.CompiledCode)
	if g == nil {
		return nil
	}
	return &keyCandidate{columns: g.Columns, source: KeyFromGrain, evidence: "the SQL's " + g.Evidence}
}

// lineageKey is an upstream node's key that the model passes through
// (or renames) column by column.
func (f *keyFinder) lineageKey(id string, depth int) *keyCandidate {
	if f.a.d.Lineage == nil || depth > maxKeyDepth {
		return nil
	}
	ml, ok := f.a.d.Lineage.Current.Models[id]
	if !ok || ml.Opaque {
		return nil
	}
	parents := append([]string(nil), ml.Parents...)
	sort.Strings(parents)
	for _, par := range parents {
		uk := f.upstreamKey(par, depth+1)
		if uk == nil {
			continue
		}
		mapped := make([]string, 0, len(uk.columns))
		for _, k := range uk.columns {
			if out := passedThrough(ml, par, k); out != "" {
				mapped = append(mapped, out)
			}
		}
		if len(mapped) == len(uk.columns) {
			return &keyCandidate{columns: mapped, source: KeyFromLineage,
				evidence: fmt.Sprintf("passes through %s's key %s (%s)", f.a.nodeName(par), strings.Join(uk.columns, ", "), uk.evidence)}
		}
	}
	return nil
}

// passedThrough names the model's output column that copies (or renames)
// column col of node par, or "".
func passedThrough(ml *cll.ModelLineage, par, col string) string {
	for _, c := range ml.Columns {
		if (c.Kind == cll.KindPassthrough || c.Kind == cll.KindRenamed) && len(c.Deps) == 1 &&
			c.Deps[0].Node == par && strings.EqualFold(c.Deps[0].Column, col) {
			return c.Name
		}
	}
	return ""
}

// upstreamKey is an upstream node's declared, tested, grain or lineage key
// (never a name guess: a guess upstream is no evidence downstream).
func (f *keyFinder) upstreamKey(id string, depth int) *keyCandidate {
	if k, ok := f.upstream[id]; ok {
		return k
	}
	f.upstream[id] = nil // breaks cycles
	var k *keyCandidate
	if ks := f.a.cmp.Project.Current.Manifest.KeyCandidates(id); len(ks) > 0 {
		c := f.fromManifest(ks[0])
		k = &c
	} else if g := f.grain(id); g != nil {
		k = g
	} else {
		k = f.lineageKey(id, depth)
	}
	f.upstream[id] = k
	return k
}

// nameCandidates are the column names that conventionally key a model:
// <model>_id, <entity>_id (layer prefix dropped, singular) and id.
func nameCandidates(model string) []string {
	n := strings.ToLower(model)
	out := []string{n + "_id"}
	stem := n
	for _, p := range []string{"stg_", "int_", "dim_", "fct_", "fact_", "mart_", "base_"} {
		if strings.HasPrefix(stem, p) {
			stem = stem[len(p):]
			break
		}
	}
	switch {
	case strings.HasSuffix(stem, "ies"):
		stem = stem[:len(stem)-3] + "y"
	case strings.HasSuffix(stem, "sses"):
		stem = stem[:len(stem)-2]
	case strings.HasSuffix(stem, "s") && !strings.HasSuffix(stem, "ss"):
		stem = stem[:len(stem)-1]
	}
	if stem+"_id" != out[0] {
		out = append(out, stem+"_id")
	}
	return append(out, "id")
}

// KeyCache remembers key checks per model, side and key while the
// artifacts stay the same, so repeated calls verify each key once.
type KeyCache struct {
	mu sync.Mutex
	m  map[string]diff.SideStats
}

// NewKeyCache returns an empty cache, safe for concurrent use.
func NewKeyCache() *KeyCache { return &KeyCache{m: map[string]diff.SideStats{}} }

func keyCacheKey(id string, s diff.Side, keys []string) string {
	return string(s) + "\x00" + id + "\x00" + strings.ToLower(strings.Join(keys, "\x00"))
}

func (c *KeyCache) get(k string) (diff.SideStats, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *KeyCache) put(k string, v diff.SideStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = v
}
