package static

import (
	"fmt"
	"sort"
	"strings"
)

// inferGraph proposes keys and relationships from column naming. The
// results are kept apart from trusted facts and used only when asked.
func (p *Project) inferGraph(g *erdGraph) {
	// Inferred keys for entities without a trusted primary key.
	for _, e := range p.entities {
		ks := g.keysOf(e.id)
		if ks.pk != nil {
			continue
		}
		for _, cand := range []string{"id", e.stem + "_id"} {
			if c, ok := e.column(cand); ok {
				ks.inferredPK = &Key{Columns: []string{c.Name}, Basis: BasisInferred, NotNull: g.notNull(e.id, []string{c.Name}),
					Evidence: []Evidence{{Basis: BasisInferred, Kind: "naming", Source: e.id, Detail: fmt.Sprintf("column %s is named like the key of %s", c.Name, e.name)}}}
				break
			}
		}
	}
	// entities by stem, for <x>_id lookups.
	byStem := map[string][]*entity{}
	for _, e := range p.entities {
		byStem[e.stem] = append(byStem[e.stem], e)
	}
	covered := map[colKey]bool{}
	for _, r := range g.rels {
		if len(r.FromColumns) == 1 {
			covered[colKey{r.FromID, strings.ToLower(r.FromColumns[0])}] = true
		}
		if len(r.ToColumns) == 1 && r.Basis == BasisJoined {
			covered[colKey{r.ToID, strings.ToLower(r.ToColumns[0])}] = true
		}
	}
	type target struct {
		e       *entity
		col     string
		trusted bool
	}
	for _, e := range p.entities {
		ks := g.keys[e.id]
		for _, c := range e.cols {
			lc := strings.ToLower(c.Name)
			if !strings.HasSuffix(lc, "_id") || lc == "id" || covered[colKey{e.id, lc}] {
				continue
			}
			if (ks.pk != nil && len(ks.pk.Columns) == 1 && strings.EqualFold(ks.pk.Columns[0], c.Name)) ||
				(ks.inferredPK != nil && strings.EqualFold(ks.inferredPK.Columns[0], c.Name)) {
				continue // the entity's own key
			}
			x := singular(strings.TrimSuffix(lc, "_id"))
			var cands []target
			for _, t := range byStem[x] {
				if t == e {
					continue
				}
				tk := g.keys[t.id]
				switch {
				case g.isKeyExactly(t.id, lc):
					cands = append(cands, target{t, t.colName(lc), true})
				case g.isKeyExactly(t.id, "id"):
					cands = append(cands, target{t, t.colName("id"), true})
				case tk.inferredPK != nil && (strings.EqualFold(tk.inferredPK.Columns[0], lc) || strings.EqualFold(tk.inferredPK.Columns[0], "id")):
					cands = append(cands, target{t, tk.inferredPK.Columns[0], false})
				}
			}
			if len(cands) == 0 {
				continue
			}
			// Narrow: trusted keys, then the same layer, then marts.
			narrow := func(keep func(target) bool) {
				var out []target
				for _, t := range cands {
					if keep(t) {
						out = append(out, t)
					}
				}
				if len(out) > 0 {
					cands = out
				}
			}
			narrow(func(t target) bool { return t.trusted })
			narrow(func(t target) bool { return t.e.layer == e.layer })
			narrow(func(t target) bool { return t.e.kind == e.kind })
			if len(cands) > 1 {
				names := make([]string, len(cands))
				for i, t := range cands {
					names[i] = t.e.name
				}
				sort.Strings(names)
				g.inferDia = append(g.inferDia, fmt.Sprintf("%s.%s could reference %s; not guessed", e.name, c.Name, strings.Join(names, " or ")))
				continue
			}
			t := cands[0]
			r := &Relationship{From: e.name, FromID: e.id, FromColumns: []string{c.Name}, To: t.e.name, ToID: t.e.id, ToColumns: []string{t.col}, from: e.idx, to: t.e.idx,
				Evidence: []Evidence{{Basis: BasisInferred, Kind: "naming", Source: e.id, Detail: fmt.Sprintf("%s.%s is named after %s.%s", e.name, c.Name, t.e.name, t.col)}}}
			g.finishRel(r)
			g.inferred = append(g.inferred, r)
		}
	}
}

// isKeyExactly reports whether the single column is exactly a trusted key.
func (g *erdGraph) isKeyExactly(id, col string) bool {
	ks := g.keys[id]
	if ks == nil {
		return false
	}
	if ks.pk != nil && len(ks.pk.Columns) == 1 && strings.EqualFold(ks.pk.Columns[0], col) {
		return true
	}
	for _, u := range ks.uniques {
		if len(u.Columns) == 1 && strings.EqualFold(u.Columns[0], col) {
			return true
		}
	}
	return false
}
