// Package cllstatic adapts column-level lineage from internal/cll to the
// static.Lineage interface, so static operations (ERD join evidence, test
// gaps on join keys, lineage coverage, compare_observed, OpenLineage export)
// can use it.
package cllstatic

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/static"
)

// Lineage implements static.Lineage over a cll.ProjectLineage. It is
// read-only after New and safe for concurrent use.
type Lineage struct {
	pl     *cll.ProjectLineage
	cols   map[string][]static.ColumnInputs
	rows   map[string][]static.RowInput
	joins  map[string][]static.JoinEvidence
	opaque []static.OpaqueNode
}

var _ static.Lineage = (*Lineage)(nil)

// Analyze runs project column lineage and adapts it.
func Analyze(ctx context.Context, env *dbt.Env, cache *cll.Cache) (*Lineage, error) {
	pl, err := cll.AnalyzeProject(ctx, env, cache)
	if err != nil {
		return nil, fmt.Errorf("column lineage for static operations: %w", err)
	}
	return New(pl, env.Manifest), nil
}

// New adapts pl. The manifest resolves the relations named in join clauses.
func New(pl *cll.ProjectLineage, m *dbt.Manifest) *Lineage {
	l := &Lineage{pl: pl, cols: map[string][]static.ColumnInputs{}, rows: map[string][]static.RowInput{}, joins: map[string][]static.JoinEvidence{}}
	rel := relationIndex(m)
	ids := make([]string, 0, len(pl.Models))
	for id := range pl.Models {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		ml := pl.Models[id]
		if ml == nil {
			continue
		}
		if ml.Opaque {
			l.opaque = append(l.opaque, static.OpaqueNode{Node: id, Reason: ml.OpaqueReason})
			continue
		}
		cols := make([]static.ColumnInputs, 0, len(ml.Columns))
		for _, c := range ml.Columns {
			ci := static.ColumnInputs{Column: c.Name, Inputs: []static.ColumnRef{}, Transformation: transformation(c.Kind)}
			for _, d := range c.Deps {
				if d.Node != "" {
					ci.Inputs = append(ci.Inputs, static.ColumnRef{Node: d.Node, Column: d.Column})
				}
			}
			cols = append(cols, ci)
		}
		l.cols[id] = cols
		joins := joinKeys(id, ml, rel)
		l.joins[id] = joins
		inJoin := map[static.ColumnRef]bool{}
		for _, j := range joins {
			for _, c := range j.LeftColumns {
				inJoin[static.ColumnRef{Node: j.LeftNode, Column: strings.ToLower(c)}] = true
			}
			for _, c := range j.RightColumns {
				inJoin[static.ColumnRef{Node: j.RightNode, Column: strings.ToLower(c)}] = true
			}
		}
		for _, d := range ml.RowDeps {
			if d.Node == "" {
				continue
			}
			kind := "row" // cll does not say which clause; only joins are told apart here
			if inJoin[static.ColumnRef{Node: d.Node, Column: strings.ToLower(d.Column)}] {
				kind = "join"
			}
			l.rows[id] = append(l.rows[id], static.RowInput{Column: static.ColumnRef{Node: d.Node, Column: d.Column}, Kind: kind})
		}
	}
	return l
}

// ModelColumns implements static.Lineage.
func (l *Lineage) ModelColumns(id string) ([]static.ColumnInputs, bool) {
	c, ok := l.cols[id]
	return c, ok
}

// RowInputs implements static.Lineage.
func (l *Lineage) RowInputs(id string) []static.RowInput { return l.rows[id] }

// JoinKeys implements static.Lineage.
func (l *Lineage) JoinKeys(id string) []static.JoinEvidence { return l.joins[id] }

// Opaque implements static.Lineage.
func (l *Lineage) Opaque() []static.OpaqueNode { return l.opaque }

func transformation(k cll.Kind) string {
	switch k {
	case cll.KindPassthrough, cll.KindRenamed:
		return "identity"
	case cll.KindAggregate:
		return "aggregation"
	}
	return "transformation"
}

var eqRe = regexp.MustCompile(`([A-Za-z_][\w$]*(?:\s*\.\s*"?[A-Za-z_][\w$]*"?)*|"[^"]+"(?:\.[^=\s()]+)*)\s*=\s*([A-Za-z_][\w$]*(?:\s*\.\s*"?[A-Za-z_][\w$]*"?)*|"[^"]+"(?:\.[^=\s()]+)*)`)

// joinKeys recovers equi-join keys from the model's join clauses and its
// row dependencies (which cll traces to physical columns). A pair is kept
// only when each side resolves to exactly one upstream node column:
//   - the joined relation, when it is a manifest relation, is the right side;
//   - otherwise the candidates are the row dependencies with that column name.
//
// Joins on columns renamed inside CTEs are skipped (no guess).
func joinKeys(model string, ml *cll.ModelLineage, rel map[string]string) []static.JoinEvidence {
	// Project analysis lists joins without their condition text; only a
	// model that joins is re-parsed for the full structure.
	if ml.Structure == nil || len(ml.Structure.Joins) == 0 {
		return nil
	}
	st := ml.ModelStructure()
	byCol := map[string][]string{} // lower column → nodes with it in row deps
	for _, d := range ml.RowDeps {
		if d.Node == "" {
			continue
		}
		c := strings.ToLower(d.Column)
		if !contains(byCol[c], d.Node) {
			byCol[c] = append(byCol[c], d.Node)
		}
	}
	pinned := make([]string, len(st.Joins))
	for i, j := range st.Joins {
		pinned[i] = rel[normRel(j.Table)]
	}
	// A pair is one join's: the conditions of one JOIN make one
	// (composite) key, while a dimension joined again under another alias
	// (role-playing: sender and receiver ADDRESS) is another relationship.
	type pairKey struct {
		join int
		l, r string
	}
	var out []static.JoinEvidence
	idx := map[pairKey]int{}
	known := map[string]string{} // qualifier (alias) → node
	knownNode := map[string]bool{}
	for i, j := range st.Joins {
		if strings.Contains(strings.ToUpper(j.Condition), " OR ") {
			continue
		}
		// Tables joined later cannot appear in this join's condition.
		later := map[string]bool{}
		for _, p := range pinned[i+1:] {
			if p != "" {
				later[p] = true
			}
		}
		cands := func(q, col, except string) []string {
			if n, ok := known[q]; ok && q != "" {
				if n != except && contains(byCol[col], n) {
					return []string{n}
				}
				return nil
			}
			var res []string
			for _, n := range byCol[col] {
				if !later[n] && !knownNode[n] && n != except {
					res = append(res, n)
				}
			}
			return res
		}
		for _, m := range eqRe.FindAllStringSubmatch(j.Condition, -1) {
			qa, a := splitIdent(m[1])
			qb, b := splitIdent(m[2])
			if a == "" || b == "" {
				continue
			}
			var ln, rn, lc, rc, lq, rq string
			if r := pinned[i]; r != "" {
				// Try b, then a, as the side of the joined relation.
				for _, try := range [][4]string{{qb, b, qa, a}, {qa, a, qb, b}} {
					q, c, oq, oc := try[0], try[1], try[2], try[3]
					if !contains(byCol[c], r) || (q != "" && known[q] != "" && known[q] != r) {
						continue
					}
					if l := cands(oq, oc, r); len(l) == 1 {
						ln, lc, lq, rn, rc, rq = l[0], oc, oq, r, c, q
						break
					}
				}
			} else {
				ca, cb := cands(qa, a, ""), cands(qb, b, "")
				switch {
				case len(ca) == 1 && len(cb) == 1 && ca[0] != cb[0]:
					ln, rn = ca[0], cb[0]
				case a == b && len(ca) == 2 && len(cb) == 2 && known[qa] == "" && known[qb] == "":
					ln, rn = ca[0], ca[1]
				}
				lc, rc, lq, rq = a, b, qa, qb
			}
			if ln == "" || rn == "" {
				continue
			}
			if lq != "" {
				known[lq] = ln
			}
			if rq != "" {
				known[rq] = rn
			}
			knownNode[ln], knownNode[rn] = true, true
			k := pairKey{i, ln, rn}
			if n, ok := idx[k]; ok {
				out[n].LeftColumns = append(out[n].LeftColumns, lc)
				out[n].RightColumns = append(out[n].RightColumns, rc)
				continue
			}
			idx[k] = len(out)
			out = append(out, static.JoinEvidence{Model: model, LeftNode: ln, LeftColumns: []string{lc}, RightNode: rn, RightColumns: []string{rc}})
		}
	}
	return out
}

// splitIdent splits a.b.c into the qualifier (b) and the column (c), lower-cased.
func splitIdent(ident string) (qualifier, column string) {
	parts := strings.Split(ident, ".")
	for i, p := range parts {
		parts[i] = strings.ToLower(strings.Trim(strings.TrimSpace(p), "\"`[]"))
	}
	column = parts[len(parts)-1]
	if len(parts) > 1 {
		qualifier = parts[len(parts)-2]
	}
	return qualifier, column
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func normRel(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.ToLower(strings.Trim(strings.TrimSpace(p), "\"`[]"))
	}
	return strings.Join(parts, ".")
}

// relationIndex maps database.schema.name, schema.name and name (when
// unique) to node ids.
func relationIndex(m *dbt.Manifest) map[string]string {
	count := map[string]int{}
	first := map[string]string{}
	for id, n := range m.AllNodes() {
		switch n.ResourceType {
		case dbt.Model, dbt.Seed, dbt.Snapshot, dbt.Source:
		default:
			continue
		}
		parts := []string{n.Database, n.Schema, n.RelationIdentifier()}
		for i := range parts {
			var ps []string
			for _, p := range parts[i:] {
				if p != "" {
					ps = append(ps, p)
				}
			}
			k := normRel(strings.Join(ps, "."))
			if k == "" {
				continue
			}
			count[k]++
			first[k] = id
		}
	}
	out := make(map[string]string, len(first))
	for k, id := range first {
		if count[k] == 1 {
			out[k] = id
		}
	}
	return out
}
