package static

import (
	"fmt"
	"sort"
	"strings"
)

// resolve finds the entity a user means by name: a unique id, a model, seed
// or snapshot name (optionally package-qualified), or a source as
// "source_name.table" / "source:source_name.table". Unknown names produce an
// error naming the closest matches.
func (p *Project) resolve(name string) (*entity, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if key == "" {
		return nil, fmt.Errorf("%w: an empty name was given; pass a model, seed, snapshot or source name", ErrUnknownEntity)
	}
	if e, ok := p.byID[name]; ok {
		return e, nil
	}
	cands := p.byName[key]
	if len(cands) == 1 {
		return cands[0], nil
	}
	if len(cands) > 1 {
		// Prefer models, then seeds and snapshots, then sources, when that is unambiguous.
		best, bestRank, tie := (*entity)(nil), 99, false
		for _, e := range cands {
			r := kindRank(e.kind)
			switch {
			case r < bestRank:
				best, bestRank, tie = e, r, false
			case r == bestRank:
				tie = true
			}
		}
		if !tie {
			return best, nil
		}
		ids := make([]string, 0, len(cands))
		for _, e := range cands {
			ids = append(ids, e.id)
		}
		sort.Strings(ids)
		return nil, fmt.Errorf("%w: %q is ambiguous; pass one of these unique ids: %s", ErrAmbiguousEntity, name, strings.Join(ids, ", "))
	}
	names := make([]string, 0, len(p.entities))
	for _, e := range p.entities {
		names = append(names, e.name)
	}
	if m := ClosestMatches(name, names, 5); len(m) > 0 {
		return nil, fmt.Errorf("%w: %q is not a model, seed, snapshot or source in this project; did you mean %s?", ErrUnknownEntity, name, strings.Join(m, ", "))
	}
	return nil, fmt.Errorf("%w: %q is not a model, seed, snapshot or source in this project; use the search operation to find names", ErrUnknownEntity, name)
}

func kindRank(kind string) int {
	switch kind {
	case "model":
		return 0
	case "seed", "snapshot":
		return 1
	}
	return 2
}

// ClosestMatches returns up to n candidates closest to name: candidates that
// start with name (or that name starts with) first, then those within a
// small edit distance, nearest first. Comparison is case-insensitive.
func ClosestMatches(name string, candidates []string, n int) []string {
	q := strings.ToLower(strings.TrimSpace(name))
	if q == "" || n <= 0 {
		return nil
	}
	type scored struct {
		s    string
		rank int
		dist int
	}
	maxDist := len(q) / 3
	if maxDist < 2 {
		maxDist = 2
	}
	seen := map[string]bool{}
	var out []scored
	for _, c := range candidates {
		if seen[c] {
			continue
		}
		seen[c] = true
		lc := strings.ToLower(c)
		switch {
		case strings.HasPrefix(lc, q) || strings.HasPrefix(q, lc):
			out = append(out, scored{c, 0, abs(len(lc) - len(q))})
		case strings.Contains(lc, q):
			out = append(out, scored{c, 1, len(lc) - len(q)})
		default:
			// Compare with the bare table name too (source "src.table").
			d := levenshtein(q, lc, maxDist)
			if i := strings.LastIndexByte(lc, '.'); i >= 0 {
				if d2 := levenshtein(q, lc[i+1:], maxDist); d2 < d {
					d = d2
				}
			}
			if d <= maxDist {
				out = append(out, scored{c, 2, d})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		return a.s < b.s
	})
	if len(out) > n {
		out = out[:n]
	}
	res := make([]string, len(out))
	for i, s := range out {
		res[i] = s.s
	}
	return res
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// levenshtein returns the edit distance between a and b, or max+1 once it
// is certain to exceed max.
func levenshtein(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	if abs(len(ra)-len(rb)) > max {
		return max + 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > max {
			return max + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
