package ops

import (
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/diff"
)

// knownColumns lists every column a node is known to have in either
// build: its current column lineage, both catalogs and the columns both
// manifests declare. A column removed by the change is known (from base).
func knownColumns(p *dbt.Project, pl *cll.ProjectLineage, id string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(c string) {
		if c != "" && c != "*" && !seen[strings.ToLower(c)] {
			seen[strings.ToLower(c)] = true
			out = append(out, c)
		}
	}
	if pl != nil {
		if m, ok := pl.Models[id]; ok && !m.Opaque {
			for _, c := range m.Columns {
				add(c.Name)
			}
		}
	}
	if p != nil {
		for _, e := range []*dbt.Env{p.Current, p.Base} {
			if e == nil {
				continue
			}
			if ce, ok := e.Catalog.Entry(id); ok {
				for _, c := range ce.SortedColumns() {
					add(c.Name)
				}
			}
			if e.Manifest != nil {
				if n, ok := e.Manifest.Node(id); ok {
					names := make([]string, 0, len(n.Columns))
					for _, c := range n.Columns {
						names = append(names, c.Name)
					}
					sort.Strings(names)
					for _, c := range names {
						add(c)
					}
				}
			}
		}
	}
	return out
}

// checkColumns refuses a column the node is not known to have: a typo
// would otherwise answer a different question ("nothing is reached").
// A node with no known columns (opaque SQL, no catalog) is not checked.
func checkColumns(param, node string, given, known []string) error {
	if len(known) == 0 {
		return nil
	}
	have := make(map[string]bool, len(known))
	for _, k := range known {
		have[strings.ToLower(k)] = true
	}
	for _, g := range given {
		if have[strings.ToLower(strings.TrimSpace(g))] {
			continue
		}
		return dbt.NotFoundf("%s: %q is not a column of %s%s", param, g, node, diff.ColumnHint(g, known))
	}
	return nil
}
