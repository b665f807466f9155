package dbt

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrNotFound is wrapped by lookups of unknown nodes.
var ErrNotFound = errors.New("not found")

// NotFoundf is an error about a name (a column, a key) that matches nothing,
// worded freely: it reads as its message alone, and errors.Is(err,
// ErrNotFound) holds, so every surface treats it as the caller's mistake.
func NotFoundf(format string, a ...any) error {
	return notFoundError{fmt.Errorf(format, a...)}
}

type notFoundError struct{ err error }

func (e notFoundError) Error() string      { return e.err.Error() }
func (e notFoundError) Unwrap() error      { return e.err }
func (notFoundError) Is(target error) bool { return target == ErrNotFound }

// Lookup finds an enabled node by unique id or by name (models first, then
// seeds, snapshots and sources; a source may be named source_name.table).
// An unknown name returns an error that names the closest matches.
func (m *Manifest) Lookup(nameOrID string) (*Node, error) {
	if n, ok := m.all[nameOrID]; ok {
		return n, nil
	}
	var best *Node
	rank := func(n *Node) int {
		switch n.ResourceType {
		case Model:
			return 0
		case Seed:
			return 1
		case Snapshot:
			return 2
		case Source:
			return 3
		}
		return 9
	}
	for _, n := range m.all {
		if n.ResourceType == Test || n.ResourceType == UnitTest {
			continue
		}
		name := n.Name
		if n.ResourceType == Source && strings.Contains(nameOrID, ".") {
			name = n.SourceName + "." + n.Name
		}
		if !strings.EqualFold(name, nameOrID) {
			continue
		}
		if best == nil || rank(n) < rank(best) || (rank(n) == rank(best) && n.UniqueID < best.UniqueID) {
			best = n
		}
	}
	if best != nil {
		return best, nil
	}
	return nil, fmt.Errorf("%w: no node named %q%s", ErrNotFound, nameOrID, SuggestSuffix(nameOrID, m.candidateNames()))
}

func (m *Manifest) candidateNames() []string {
	out := make([]string, 0, len(m.all))
	for _, n := range m.all {
		if n.ResourceType == Test || n.ResourceType == UnitTest {
			continue
		}
		out = append(out, n.Name)
	}
	return out
}

// SuggestSuffix returns "; did you mean a, b or c?" for the candidates
// closest to name, or "" when nothing is close.
func SuggestSuffix(name string, candidates []string) string {
	s := Closest(name, candidates, 3)
	switch len(s) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("; did you mean %q?", s[0])
	}
	q := make([]string, len(s))
	for i, c := range s {
		q[i] = fmt.Sprintf("%q", c)
	}
	return "; did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1] + "?"
}

// Closest returns up to n candidates nearest to name: prefix and substring
// matches first, then by edit distance, ignoring distant ones.
func Closest(name string, candidates []string, n int) []string {
	lname := strings.ToLower(name)
	type scored struct {
		s     string
		score int
	}
	seen := map[string]bool{}
	var list []scored
	for _, c := range candidates {
		if seen[c] {
			continue
		}
		seen[c] = true
		lc := strings.ToLower(c)
		d := EditDistance(lname, lc)
		switch {
		case strings.HasPrefix(lc, lname) || strings.HasPrefix(lname, lc):
			d = 0
		case strings.Contains(lc, lname) || strings.Contains(lname, lc):
			d = 1
		}
		limit := len(lname)/2 + 1
		if d <= limit {
			list = append(list, scored{c, d})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score < list[j].score
		}
		return list[i].s < list[j].s
	})
	out := []string{}
	for i := 0; i < len(list) && i < n; i++ {
		out = append(out, list[i].s)
	}
	return out
}

// EditDistance is the Levenshtein distance between a and b (bytes).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
