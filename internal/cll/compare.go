package cll

import "strings"

// Change categories, from most to least severe.
const (
	// Breaking: a column was removed or renamed, or the set of rows changed
	// (WHERE, JOIN, GROUP BY, DISTINCT...), so every downstream use may differ.
	Breaking = "breaking"
	// PartialBreaking: only some columns' logic changed; downstream impact
	// is limited to users of those columns.
	PartialBreaking = "partial_breaking"
	// NonBreaking: only added columns (or no column-level change).
	NonBreaking = "non_breaking"
)

// RenamedColumn is a column whose computation stayed and whose name changed.
type RenamedColumn struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// ChangeAnalysis classifies how a model changed between two builds.
type ChangeAnalysis struct {
	Node          string          `json:"node"`
	Category      string          `json:"category"`
	Added         []string        `json:"added"`
	Removed       []string        `json:"removed"`
	Modified      []string        `json:"modified"`
	Renamed       []RenamedColumn `json:"renamed"`
	RowSetChanged bool            `json:"row_set_changed"`
	Reasons       []string        `json:"reasons"`
}

// ChangedColumns returns the columns a downstream impact query should start
// from: modified, removed and renamed-away columns. For a row-set change
// every base column is affected.
func (c ChangeAnalysis) ChangedColumns(base *ModelLineage) []NodeColumn {
	var out []NodeColumn
	if c.RowSetChanged && base != nil {
		for _, col := range base.Columns {
			out = append(out, NodeColumn{Node: c.Node, Column: col.Name})
		}
		return out
	}
	for _, n := range c.Modified {
		out = append(out, NodeColumn{Node: c.Node, Column: n})
	}
	for _, n := range c.Removed {
		out = append(out, NodeColumn{Node: c.Node, Column: n})
	}
	for _, r := range c.Renamed {
		out = append(out, NodeColumn{Node: c.Node, Column: r.From})
	}
	return out
}

// CompareModel compares the lineage of one model in the base and current
// builds. Columns are matched by name; a column counts as modified when its
// expression digest differs, which ignores aliases, formatting and comments.
// A nil base means the model is new; a nil current means it was removed.
func CompareModel(base, current *ModelLineage) ChangeAnalysis {
	ca := ChangeAnalysis{Added: []string{}, Removed: []string{}, Modified: []string{}, Renamed: []RenamedColumn{}, Reasons: []string{}}
	switch {
	case base == nil && current == nil:
		ca.Category = NonBreaking
		return ca
	case base == nil:
		ca.Node = current.UniqueID
		for _, c := range current.Columns {
			ca.Added = append(ca.Added, c.Name)
		}
		ca.Category = NonBreaking
		ca.Reasons = append(ca.Reasons, "new model")
		return ca
	case current == nil:
		ca.Node = base.UniqueID
		for _, c := range base.Columns {
			ca.Removed = append(ca.Removed, c.Name)
		}
		ca.Category = Breaking
		ca.Reasons = append(ca.Reasons, "model removed")
		return ca
	}
	ca.Node = current.UniqueID
	if base.Opaque || current.Opaque {
		// Without lineage nothing rules out a breaking change.
		ca.Category = Breaking
		r := current.OpaqueReason
		if !current.Opaque {
			r = base.OpaqueReason
		}
		ca.Reasons = append(ca.Reasons, "lineage unavailable: "+r)
		diffNames(base, current, &ca)
		return ca
	}
	diffNames(base, current, &ca)
	// A removed column whose digest reappears under a new name is a rename.
	if len(ca.Removed) > 0 && len(ca.Added) > 0 {
		var removed, added []string
		used := map[string]bool{}
		// Added columns by digest, in order: each removed column takes the
		// first unused one with its digest.
		byDigest := map[Digest][]string{}
		for _, a := range ca.Added {
			if cc, _ := current.Column(a); cc != nil && cc.Digest != 0 {
				byDigest[cc.Digest] = append(byDigest[cc.Digest], a)
			}
		}
		for _, r := range ca.Removed {
			bc, _ := base.Column(r)
			match := ""
			if bc != nil && bc.Digest != 0 {
				cands := byDigest[bc.Digest]
				for len(cands) > 0 && used[cands[0]] {
					cands = cands[1:]
				}
				if len(cands) > 0 {
					match = cands[0]
					byDigest[bc.Digest] = cands[1:]
				}
			}
			if match != "" {
				used[match] = true
				ca.Renamed = append(ca.Renamed, RenamedColumn{From: r, To: match})
			} else {
				removed = append(removed, r)
			}
		}
		for _, a := range ca.Added {
			if !used[a] {
				added = append(added, a)
			}
		}
		ca.Removed, ca.Added = nonNil(removed), nonNil(added)
	}
	for _, bc := range base.Columns {
		if cc, ok := current.Column(bc.Name); ok && cc.Digest != bc.Digest {
			ca.Modified = append(ca.Modified, cc.Name)
		}
	}
	ca.RowSetChanged = base.RowDigest != current.RowDigest
	switch {
	case len(ca.Removed) > 0 || len(ca.Renamed) > 0 || ca.RowSetChanged:
		ca.Category = Breaking
		if len(ca.Removed) > 0 {
			ca.Reasons = append(ca.Reasons, "removed columns: "+strings.Join(ca.Removed, ", "))
		}
		if len(ca.Renamed) > 0 {
			ca.Reasons = append(ca.Reasons, "renamed columns")
		}
		if ca.RowSetChanged {
			ca.Reasons = append(ca.Reasons, "row set changed (filter, join, grouping or DISTINCT)")
		}
	case len(ca.Modified) > 0:
		ca.Category = PartialBreaking
		ca.Reasons = append(ca.Reasons, "modified columns: "+strings.Join(ca.Modified, ", "))
	default:
		ca.Category = NonBreaking
		if len(ca.Added) > 0 {
			ca.Reasons = append(ca.Reasons, "added columns: "+strings.Join(ca.Added, ", "))
		}
	}
	return ca
}

func diffNames(base, current *ModelLineage, ca *ChangeAnalysis) {
	for _, c := range current.Columns {
		if _, ok := base.Column(c.Name); !ok {
			ca.Added = append(ca.Added, c.Name)
		}
	}
	for _, c := range base.Columns {
		if _, ok := current.Column(c.Name); !ok {
			ca.Removed = append(ca.Removed, c.Name)
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
