package static

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// SearchInput is a name search.
type SearchInput struct {
	Query string `json:"query" jsonschema:"whitespace-separated terms; every term must appear in the name (case-insensitive)"`
	Limit int    `json:"limit,omitempty" jsonschema:"maximum results (default 20, max 200)"`
}

// SearchHit is one model, seed, snapshot, source or column.
type SearchHit struct {
	// Kind is model, seed, snapshot, source or column.
	Kind     string `json:"kind" jsonschema:"model, seed, snapshot, source or column"`
	Name     string `json:"name" jsonschema:"node name"`
	UniqueID string `json:"unique_id" jsonschema:"unique id"`
	Column   string `json:"column,omitempty" jsonschema:"column, for column hits"`
	Type     string `json:"type,omitempty" jsonschema:"column data type"`
	// Prefix is true when every term matches at the start of a word.
	Prefix bool `json:"prefix" jsonschema:"every term matches at the start of a word"`
}

// SearchResult lists matches, prefix matches first.
type SearchResult struct {
	Hits      []SearchHit `json:"hits" jsonschema:"matches, prefix matches first"`
	Total     int         `json:"total" jsonschema:"matches found"`
	Truncated bool        `json:"truncated" jsonschema:"true when cut at limit"`
}

// Search finds models, seeds, snapshots, sources and columns by name.
func Search(ctx context.Context, p *Project, in SearchInput) (*SearchResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	terms := strings.Fields(strings.ToLower(in.Query))
	if len(terms) == 0 {
		return nil, fmt.Errorf("search needs a query: pass one or more words of a model, source or column name")
	}
	limit := clampLimit(in.Limit, 20, 200)
	type scored struct {
		hit  SearchHit
		rank int
	}
	var all []scored
	for _, e := range p.entities {
		if ok, prefix := matchTerms(e.lowName, terms); ok {
			all = append(all, scored{SearchHit{Kind: e.kind, Name: e.name, UniqueID: e.id, Prefix: prefix}, rankOf(prefix, false)})
		}
		for ci, c := range e.cols {
			// Every term must be in the table or the column name, and at
			// least one in the column name.
			lc := e.lowCols[ci]
			ok, prefix, inCol := true, true, false
			for _, t := range terms {
				if i := strings.Index(lc, t); i >= 0 {
					inCol = true
					if !wordStartMatch(lc, t, i) {
						prefix = false
					}
					continue
				}
				i := strings.Index(e.lowName, t)
				if i < 0 {
					ok = false
					break
				}
				if !wordStartMatch(e.lowName, t, i) {
					prefix = false
				}
			}
			if ok && inCol {
				all = append(all, scored{SearchHit{Kind: "column", Name: e.name, UniqueID: e.id, Column: c.Name, Type: c.Type, Prefix: prefix}, rankOf(prefix, true)})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		la, lb := len(a.hit.Name)+len(a.hit.Column), len(b.hit.Name)+len(b.hit.Column)
		if la != lb {
			return la < lb
		}
		if a.hit.Name != b.hit.Name {
			return a.hit.Name < b.hit.Name
		}
		return a.hit.Column < b.hit.Column
	})
	res := &SearchResult{Total: len(all), Hits: []SearchHit{}}
	for i, s := range all {
		if i == limit {
			res.Truncated = true
			break
		}
		res.Hits = append(res.Hits, s.hit)
	}
	return res, nil
}

func rankOf(prefix, column bool) int {
	r := 0
	if !prefix {
		r = 2
	}
	if column {
		r++
	}
	return r
}

// matchTerms reports whether every term occurs in s, and whether each
// occurs at the start of a word (after _, ., -, space or at the start).
func matchTerms(s string, terms []string) (ok, prefix bool) {
	prefix = true
	for _, t := range terms {
		i := strings.Index(s, t)
		if i < 0 {
			return false, false
		}
		if !wordStartMatch(s, t, i) {
			prefix = false
		}
	}
	return true, prefix
}

// wordStartMatch reports whether t occurs in s at a word start, checking
// from the first occurrence at i onwards.
func wordStartMatch(s, t string, i int) bool {
	for i >= 0 {
		if i == 0 || isSep(s[i-1]) {
			return true
		}
		j := strings.Index(s[i+1:], t)
		if j < 0 {
			return false
		}
		i += j + 1
	}
	return false
}

func isSep(b byte) bool { return b == '_' || b == '.' || b == '-' || b == ' ' }
