package static

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// Bases of a key or relationship fact, most trustworthy first.
const (
	BasisDeclared = "declared" // constraints, incremental/snapshot unique_key
	BasisTested   = "tested"   // unique + not_null, relationships, unique_combination_of_columns
	BasisJoined   = "joined"   // equi-join keys in model SQL (needs column lineage)
	BasisInferred = "inferred" // column naming only (id, <entity>_id); opt-in
)

// Cardinalities of a relationship, read from the referencing side to the referenced side.
const (
	ManyToOne          = "many_to_one"
	OneToOne           = "one_to_one"
	UnknownCardinality = "unknown"
)

func basisRank(b string) int {
	switch b {
	case BasisDeclared:
		return 0
	case BasisTested:
		return 1
	case BasisJoined:
		return 2
	}
	return 3
}

// Evidence is one artifact fact behind a key or relationship.
type Evidence struct {
	Basis string `json:"basis" jsonschema:"declared, tested, joined or inferred"`
	// Kind is constraint, unique_key, test, join or naming.
	Kind string `json:"kind" jsonschema:"constraint, unique_key, test, join or naming"`
	// Source is the unique id of the test, constraint owner or joining model.
	Source string `json:"source" jsonschema:"unique id of the test, constraint owner or joining model"`
	Detail string `json:"detail,omitempty" jsonschema:"what was found"`
}

// Key is a primary or unique key of an entity.
type Key struct {
	Columns []string `json:"columns" jsonschema:"key columns"`
	Basis   string   `json:"basis" jsonschema:"declared, tested or inferred"`
	// NotNull is true when every key column is declared or tested not null.
	NotNull  bool       `json:"not_null" jsonschema:"every key column is declared or tested not null"`
	Note     string     `json:"note,omitempty" jsonschema:"caveat"`
	Evidence []Evidence `json:"evidence" jsonschema:"the facts behind it"`
}

// Relationship says that From's columns reference To's columns. When the
// cardinality is known, To is the "one" side.
type Relationship struct {
	From        string   `json:"from" jsonschema:"referencing entity"`
	FromID      string   `json:"from_id" jsonschema:"its unique id"`
	FromColumns []string `json:"from_columns" jsonschema:"referencing columns"`
	To          string   `json:"to" jsonschema:"referenced entity (the one side when cardinality is known)"`
	ToID        string   `json:"to_id" jsonschema:"its unique id"`
	ToColumns   []string `json:"to_columns" jsonschema:"referenced columns"`
	// Basis is the most trustworthy basis among the evidence.
	Basis string `json:"basis" jsonschema:"most trustworthy basis among the evidence: declared, tested, joined or inferred"`
	// Cardinality is many_to_one, one_to_one or unknown; it is decided
	// only by declared or tested keys.
	Cardinality string `json:"cardinality" jsonschema:"many_to_one, one_to_one or unknown (decided only by declared or tested keys)"`
	// Optional is true when the referencing columns may be null.
	Optional bool       `json:"optional" jsonschema:"the referencing columns may be null"`
	Evidence []Evidence `json:"evidence" jsonschema:"the facts behind it"`

	from, to int // entity indexes, for path search
}

type colKey struct{ id, col string } // col is lower-case

type entityKeys struct {
	pk         *Key
	inferredPK *Key
	uniques    []*Key                // trusted unique keys other than the PK
	notNull    map[string][]Evidence // lower-case column → evidence
}

type erdGraph struct {
	keys     map[string]*entityKeys
	rels     []*Relationship // declared, tested and joined, merged per column pair
	inferred []*Relationship
	diags    []string
	inferDia []string
	tests    map[colKey]map[string][]string // column → test name → test ids
	joinUses map[colKey][]string            // join-key column → joining models
	relIdx   map[string]*Relationship
	adj      [2]map[string][]*Relationship // without and with inferred relationships
	adjIdx   [2][][]*Relationship          // the same by entity index
}

func (g *erdGraph) keysOf(id string) *entityKeys {
	k := g.keys[id]
	if k == nil {
		k = &entityKeys{notNull: map[string][]Evidence{}}
		g.keys[id] = k
	}
	return k
}

// graph returns the ERD facts, computing them on first use.
func (p *Project) graph() *erdGraph {
	p.erdOnce.Do(func() { p.erd = p.buildGraph() })
	return p.erd
}

type uniqueFact struct {
	cols      []string
	basis     string
	ev        Evidence
	composite bool // dbt_utils.unique_combination_of_columns
}

var (
	refRe   = regexp.MustCompile(`^\s*(?:\{\{\s*)?(ref|source)\s*\(\s*['"]([^'"]+)['"]\s*(?:,\s*['"]([^'"]+)['"])?`)
	exprRe  = regexp.MustCompile(`^\s*([\w."` + "`" + `\[\]]+)\s*\(([^)]*)\)`)
	identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*$`)
)

func (p *Project) buildGraph() *erdGraph {
	g := &erdGraph{keys: map[string]*entityKeys{}, tests: map[colKey]map[string][]string{}, joinUses: map[colKey][]string{}, relIdx: map[string]*Relationship{}}
	declaredPK := map[string]*Key{}
	uniques := map[string][]uniqueFact{}
	type fkFact struct {
		from     *entity
		fromCols []string
		to       *entity
		toCols   []string
		ev       Evidence
	}
	var fks []fkFact

	addFK := func(e *entity, cols []string, c dbt.Constraint, src string) {
		var to *entity
		toCols := c.ToColumns
		if c.To != "" {
			to = p.resolveRefArg(c.To)
		} else if m := exprRe.FindStringSubmatch(c.Expression); m != nil {
			to = p.matchRelation(m[1])
			toCols = splitCols(m[2])
		}
		if to == nil || len(toCols) != len(cols) || len(cols) == 0 {
			g.diags = append(g.diags, fmt.Sprintf("%s: foreign_key constraint on %s could not be resolved (to %q %q)", e.name, strings.Join(cols, ", "), c.To, c.Expression))
			return
		}
		fks = append(fks, fkFact{e, cols, to, toCols, Evidence{Basis: BasisDeclared, Kind: "constraint", Source: src, Detail: "foreign_key constraint"}})
	}
	for _, e := range p.entities {
		n := e.node
		ks := g.keysOf(e.id)
		for _, c := range n.Constraints {
			cols := c.Columns
			switch c.Type {
			case "primary_key":
				if len(cols) > 0 && declaredPK[e.id] == nil {
					declaredPK[e.id] = &Key{Columns: e.colNames(cols), Basis: BasisDeclared, NotNull: true, Evidence: []Evidence{{Basis: BasisDeclared, Kind: "constraint", Source: e.id, Detail: "primary_key constraint"}}}
				}
			case "unique":
				if len(cols) > 0 {
					uniques[e.id] = append(uniques[e.id], uniqueFact{cols: e.colNames(cols), basis: BasisDeclared, ev: Evidence{Basis: BasisDeclared, Kind: "constraint", Source: e.id, Detail: "unique constraint"}})
				}
			case "not_null":
				for _, col := range cols {
					ks.notNull[strings.ToLower(col)] = append(ks.notNull[strings.ToLower(col)], Evidence{Basis: BasisDeclared, Kind: "constraint", Source: e.id, Detail: "not_null constraint"})
				}
			case "foreign_key":
				addFK(e, e.colNames(cols), c, e.id)
			}
		}
		colNames := make([]string, 0, len(n.Columns))
		for name := range n.Columns {
			colNames = append(colNames, name)
		}
		sort.Strings(colNames)
		for _, name := range colNames {
			col := n.Columns[name]
			if col == nil {
				continue
			}
			cn := e.colName(col.Name)
			for _, c := range col.Constraints {
				switch c.Type {
				case "primary_key":
					if declaredPK[e.id] == nil {
						declaredPK[e.id] = &Key{Columns: []string{cn}, Basis: BasisDeclared, NotNull: true, Evidence: []Evidence{{Basis: BasisDeclared, Kind: "constraint", Source: e.id, Detail: "primary_key constraint on column " + cn}}}
					}
				case "unique":
					uniques[e.id] = append(uniques[e.id], uniqueFact{cols: []string{cn}, basis: BasisDeclared, ev: Evidence{Basis: BasisDeclared, Kind: "constraint", Source: e.id, Detail: "unique constraint on column " + cn}})
				case "not_null":
					lc := strings.ToLower(cn)
					ks.notNull[lc] = append(ks.notNull[lc], Evidence{Basis: BasisDeclared, Kind: "constraint", Source: e.id, Detail: "not_null constraint"})
				case "foreign_key":
					addFK(e, []string{cn}, c, e.id)
				}
			}
		}
		if declaredPK[e.id] == nil && len(n.Config.UniqueKey) > 0 && (n.Materialized() == "incremental" || e.kind == dbt.Snapshot) {
			cols := make([]string, 0, len(n.Config.UniqueKey))
			ok := true
			for _, c := range n.Config.UniqueKey {
				c = strings.TrimSpace(c)
				if !identRe.MatchString(c) {
					ok = false
					break
				}
				cols = append(cols, e.colName(c))
			}
			if ok {
				what := "incremental"
				if e.kind == dbt.Snapshot {
					what = "snapshot"
				}
				declaredPK[e.id] = &Key{Columns: cols, Basis: BasisDeclared, Evidence: []Evidence{{Basis: BasisDeclared, Kind: "unique_key", Source: e.id, Detail: what + " unique_key"}}}
			} else {
				g.diags = append(g.diags, fmt.Sprintf("%s: unique_key %q is an expression, not columns; it is not used as a key", e.name, strings.Join(n.Config.UniqueKey, ", ")))
			}
		}
	}

	// Tests, in id order so evidence lists are deterministic.
	testIDs := make([]string, 0, 1024)
	for id, n := range p.env.Manifest.AllNodes() {
		if n.ResourceType == dbt.Test && n.TestMetadata != nil {
			testIDs = append(testIDs, id)
		}
	}
	sort.Strings(testIDs)
	for _, tid := range testIDs {
		t := p.env.Manifest.AllNodes()[tid]
		tm := t.TestMetadata
		e := p.testTarget(t)
		if e == nil {
			continue
		}
		name := strings.ToLower(tm.Name)
		col := t.ColumnName
		if col == "" {
			col = kwString(tm.Kwargs, "column_name")
		}
		filtered := bytes.Contains(t.ConfigRaw, []byte(`"where"`)) && testWhere(t.ConfigRaw) != ""
		if col != "" {
			ck := colKey{e.id, strings.ToLower(col)}
			if g.tests[ck] == nil {
				g.tests[ck] = map[string][]string{}
			}
			g.tests[ck][name] = append(g.tests[ck][name], tid)
		}
		ev := Evidence{Basis: BasisTested, Kind: "test", Source: tid}
		switch name {
		case "unique", "not_null", "relationships", "unique_combination_of_columns":
		default:
			continue
		}
		if filtered {
			g.diags = append(g.diags, fmt.Sprintf("%s: %s test %s has a where filter, so it is not used as key evidence", e.name, name, tid))
			continue
		}
		switch name {
		case "unique":
			if !identRe.MatchString(col) {
				g.diags = append(g.diags, fmt.Sprintf("%s: unique test %s is on the expression %q, not a column; it is not used as a key", e.name, tid, col))
				continue
			}
			ev.Detail = "unique test"
			uniques[e.id] = append(uniques[e.id], uniqueFact{cols: []string{e.colName(col)}, basis: BasisTested, ev: ev})
		case "not_null":
			if identRe.MatchString(col) {
				ev.Detail = "not_null test"
				lc := strings.ToLower(col)
				ks := g.keysOf(e.id)
				ks.notNull[lc] = append(ks.notNull[lc], ev)
			}
		case "unique_combination_of_columns":
			cols := kwStrings(tm.Kwargs, "combination_of_columns")
			if len(cols) == 0 {
				continue
			}
			for i, c := range cols {
				cols[i] = e.colName(c)
				ck := colKey{e.id, strings.ToLower(c)}
				if g.tests[ck] == nil {
					g.tests[ck] = map[string][]string{}
				}
				g.tests[ck][name] = append(g.tests[ck][name], tid)
			}
			ev.Detail = "unique_combination_of_columns test"
			uniques[e.id] = append(uniques[e.id], uniqueFact{cols: cols, basis: BasisTested, ev: ev, composite: true})
		case "relationships":
			to := p.resolveRefArg(kwString(tm.Kwargs, "to"))
			field := kwString(tm.Kwargs, "field")
			if to == nil || field == "" || !identRe.MatchString(col) {
				g.diags = append(g.diags, fmt.Sprintf("%s: relationships test %s could not be resolved (to %q, field %q)", e.name, tid, kwString(tm.Kwargs, "to"), field))
				continue
			}
			ev.Detail = "relationships test"
			fks = append(fks, fkFact{e, []string{e.colName(col)}, to, []string{to.colName(field)}, ev})
		}
	}

	// Keys: declared wins; then tested unique + not_null; then the smallest
	// unique combination. A unique alone stays a nullable unique key.
	for _, e := range p.entities {
		ks := g.keysOf(e.id)
		allNN := func(cols []string) bool {
			for _, c := range cols {
				if len(ks.notNull[strings.ToLower(c)]) == 0 {
					return false
				}
			}
			return true
		}
		nnEvidence := func(cols []string) []Evidence {
			var out []Evidence
			for _, c := range cols {
				out = append(out, ks.notNull[strings.ToLower(c)]...)
			}
			return out
		}
		facts := mergeUniqueFacts(uniques[e.id])
		if pk := declaredPK[e.id]; pk != nil {
			if !pk.NotNull {
				pk.NotNull = allNN(pk.Columns)
			}
			if pk.NotNull && pk.Evidence[0].Kind == "unique_key" {
				pk.Evidence = append(pk.Evidence, nnEvidence(pk.Columns)...)
			}
			for _, f := range facts {
				if sameCols(f.cols, pk.Columns) {
					pk.Evidence = append(pk.Evidence, f.evs...)
				}
			}
			if !pk.NotNull {
				pk.Note = "nullability untested"
			}
			ks.pk = pk
		} else {
			for _, f := range facts {
				if !f.composite && len(f.cols) == 1 && allNN(f.cols) {
					ks.pk = &Key{Columns: f.cols, Basis: f.basis, NotNull: true, Evidence: append(append([]Evidence{}, f.evs...), nnEvidence(f.cols)...)}
					break
				}
			}
			if ks.pk == nil {
				for _, f := range facts { // sorted smallest first
					if f.composite {
						k := &Key{Columns: f.cols, Basis: f.basis, NotNull: allNN(f.cols), Evidence: append([]Evidence{}, f.evs...)}
						if k.NotNull {
							k.Evidence = append(k.Evidence, nnEvidence(f.cols)...)
						} else {
							k.Note = "nullability untested"
						}
						ks.pk = k
						break
					}
				}
			}
		}
		for _, f := range facts {
			if ks.pk != nil && sameCols(f.cols, ks.pk.Columns) {
				continue
			}
			k := &Key{Columns: f.cols, Basis: f.basis, NotNull: allNN(f.cols), Evidence: f.evs}
			if !k.NotNull {
				k.Note = "nullable: not a primary key until its columns are tested not_null"
			}
			ks.uniques = append(ks.uniques, k)
		}
	}

	// Declared and tested relationships.
	for _, f := range fks {
		g.addRel(f.from, f.fromCols, f.to, f.toCols, f.ev)
	}
	// Joined relationships from column lineage.
	if p.lin != nil {
		for _, e := range p.entities {
			if e.kind != dbt.Model {
				continue
			}
			for _, j := range p.lin.JoinKeys(e.id) {
				a, b := p.byID[j.LeftNode], p.byID[j.RightNode]
				if a == nil || b == nil || len(j.LeftColumns) == 0 || len(j.LeftColumns) != len(j.RightColumns) {
					continue
				}
				ac, bc := a.colNames(j.LeftColumns), b.colNames(j.RightColumns)
				if a == b && sameCols(ac, bc) {
					continue
				}
				for _, c := range ac {
					g.addJoinUse(colKey{a.id, strings.ToLower(c)}, e.id)
				}
				for _, c := range bc {
					g.addJoinUse(colKey{b.id, strings.ToLower(c)}, e.id)
				}
				ev := Evidence{Basis: BasisJoined, Kind: "join", Source: e.id, Detail: joinDetail(a, ac, b, bc)}
				// Orient towards the trusted key when one side has one.
				if g.isKey(a.id, ac) && !g.isKey(b.id, bc) {
					a, b, ac, bc = b, a, bc, ac
				} else if !g.isKey(b.id, bc) && !g.isKey(a.id, ac) && a.name > b.name {
					a, b, ac, bc = b, a, bc, ac
				}
				if r := g.relIdx[relKey(b.id, bc, a.id, ac)]; r != nil {
					r.Evidence = append(r.Evidence, ev)
					continue
				}
				g.addRel(a, ac, b, bc, ev)
			}
		}
	}
	for _, r := range g.rels {
		g.finishRel(r)
	}
	p.inferGraph(g)
	sortRels(g.rels)
	sortRels(g.inferred)
	g.adj[0] = adjacency(g.relationships(false))
	g.adj[1] = adjacency(g.relationships(true))
	for k, infer := range []bool{false, true} {
		g.adjIdx[k] = make([][]*Relationship, len(p.entities))
		for _, r := range g.relationships(infer) {
			g.adjIdx[k][r.from] = append(g.adjIdx[k][r.from], r)
			if r.to != r.from {
				g.adjIdx[k][r.to] = append(g.adjIdx[k][r.to], r)
			}
		}
	}
	return g
}

func joinDetail(a *entity, ac []string, b *entity, bc []string) string {
	parts := make([]string, len(ac))
	for i := range ac {
		parts[i] = a.name + "." + ac[i] + " = " + b.name + "." + bc[i]
	}
	return "joins " + strings.Join(parts, " and ")
}

func (g *erdGraph) addJoinUse(k colKey, model string) {
	for _, m := range g.joinUses[k] {
		if m == model {
			return
		}
	}
	g.joinUses[k] = append(g.joinUses[k], model)
}

func relKey(fromID string, fromCols []string, toID string, toCols []string) string {
	return strings.ToLower(fromID + "|" + strings.Join(fromCols, ",") + "|" + toID + "|" + strings.Join(toCols, ","))
}

func (g *erdGraph) addRel(from *entity, fromCols []string, to *entity, toCols []string, ev Evidence) {
	k := relKey(from.id, fromCols, to.id, toCols)
	if r := g.relIdx[k]; r != nil {
		r.Evidence = append(r.Evidence, ev)
		return
	}
	r := &Relationship{From: from.name, FromID: from.id, FromColumns: fromCols, To: to.name, ToID: to.id, ToColumns: toCols, Evidence: []Evidence{ev}, from: from.idx, to: to.idx}
	g.relIdx[k] = r
	g.rels = append(g.rels, r)
}

// finishRel sets the basis, cardinality and optionality from the evidence and trusted keys.
func (g *erdGraph) finishRel(r *Relationship) {
	r.Basis = BasisInferred
	for _, ev := range r.Evidence {
		if basisRank(ev.Basis) < basisRank(r.Basis) {
			r.Basis = ev.Basis
		}
	}
	sort.SliceStable(r.Evidence, func(i, j int) bool { return basisRank(r.Evidence[i].Basis) < basisRank(r.Evidence[j].Basis) })
	switch {
	case g.isKey(r.ToID, r.ToColumns) && g.isKey(r.FromID, r.FromColumns):
		r.Cardinality = OneToOne
	case g.isKey(r.ToID, r.ToColumns):
		r.Cardinality = ManyToOne
	default:
		r.Cardinality = UnknownCardinality
	}
	r.Optional = !g.notNull(r.FromID, r.FromColumns)
}

// isKey reports whether cols contain a declared or tested key of the entity.
func (g *erdGraph) isKey(id string, cols []string) bool {
	ks := g.keys[id]
	if ks == nil {
		return false
	}
	if ks.pk != nil && subsetCols(ks.pk.Columns, cols) {
		return true
	}
	for _, u := range ks.uniques {
		if subsetCols(u.Columns, cols) {
			return true
		}
	}
	return false
}

func (g *erdGraph) notNull(id string, cols []string) bool {
	ks := g.keys[id]
	if ks == nil {
		return false
	}
	for _, c := range cols {
		lc := strings.ToLower(c)
		if len(ks.notNull[lc]) > 0 {
			continue
		}
		if ks.pk != nil && ks.pk.Basis == BasisDeclared && ks.pk.NotNull && containsFold(ks.pk.Columns, c) {
			continue
		}
		return false
	}
	return true
}

type mergedUnique struct {
	cols      []string
	basis     string
	evs       []Evidence
	composite bool
}

// mergeUniqueFacts merges facts on the same column set, keeping the best
// basis, and sorts them smallest first (then declared first, then by name).
func mergeUniqueFacts(fs []uniqueFact) []*mergedUnique {
	var out []*mergedUnique
	for _, f := range fs {
		var m *mergedUnique
		for _, o := range out {
			if sameCols(o.cols, f.cols) {
				m = o
				break
			}
		}
		if m == nil {
			m = &mergedUnique{cols: f.cols, basis: f.basis, composite: f.composite && len(f.cols) > 1}
			out = append(out, m)
		}
		if basisRank(f.basis) < basisRank(m.basis) {
			m.basis = f.basis
		}
		if !f.composite {
			m.composite = false
		}
		m.evs = append(m.evs, f.ev)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i].cols) != len(out[j].cols) {
			return len(out[i].cols) < len(out[j].cols)
		}
		if basisRank(out[i].basis) != basisRank(out[j].basis) {
			return basisRank(out[i].basis) < basisRank(out[j].basis)
		}
		return strings.Join(out[i].cols, ",") < strings.Join(out[j].cols, ",")
	})
	return out
}

func sortRels(rs []*Relationship) {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.From != b.From {
			return a.From < b.From
		}
		if x, y := strings.Join(a.FromColumns, ","), strings.Join(b.FromColumns, ","); x != y {
			return x < y
		}
		if a.To != b.To {
			return a.To < b.To
		}
		return strings.Join(a.ToColumns, ",") < strings.Join(b.ToColumns, ",")
	})
}

func sameCols(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	return subsetCols(a, b)
}

// subsetCols reports whether every column of sub is in set (case-insensitive).
func subsetCols(sub, set []string) bool {
	for _, c := range sub {
		if !containsFold(set, c) {
			return false
		}
	}
	return true
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func (e *entity) colNames(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = e.colName(strings.TrimSpace(c))
	}
	return out
}

func splitCols(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		c = strings.Trim(strings.TrimSpace(c), "\"`[]")
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// resolveRefArg resolves "ref('x')", "ref('pkg', 'x')", "source('a', 'b')",
// with or without {{ }}, to an entity.
func (p *Project) resolveRefArg(s string) *entity {
	m := refRe.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	if m[1] == "source" {
		if m[3] == "" {
			return nil
		}
		if es := p.byName["source:"+strings.ToLower(m[2]+"."+m[3])]; len(es) == 1 {
			return es[0]
		}
		return nil
	}
	name := m[2]
	if m[3] != "" {
		name = m[2] + "." + m[3] // package-qualified
	}
	var best *entity
	for _, e := range p.byName[strings.ToLower(name)] {
		if e.kind != dbt.Source && (best == nil || kindRank(e.kind) < kindRank(best.kind)) {
			best = e
		}
	}
	return best
}

// matchRelation finds the entity whose relation name ends with the given
// (possibly schema-qualified) name.
func (p *Project) matchRelation(rel string) *entity {
	want := relParts(rel)
	if len(want) == 0 {
		return nil
	}
	var found *entity
	for _, e := range p.entities {
		have := relParts(e.node.RelationName)
		if len(have) == 0 {
			have = relParts(e.node.Database + "." + e.node.Schema + "." + e.node.RelationIdentifier())
		}
		if len(have) < len(want) {
			continue
		}
		ok := true
		for i := range want {
			if !strings.EqualFold(want[len(want)-1-i], have[len(have)-1-i]) {
				ok = false
				break
			}
		}
		if ok {
			if found != nil {
				return nil // ambiguous
			}
			found = e
		}
	}
	return found
}

func relParts(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ".") {
		part = strings.Trim(strings.TrimSpace(part), "\"`[]")
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// testTarget returns the entity a generic test is attached to.
func (p *Project) testTarget(t *dbt.Node) *entity {
	if t.AttachedNode != "" {
		return p.byID[t.AttachedNode]
	}
	if t.TestMetadata != nil {
		if e := p.resolveRefArg(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(kwString(t.TestMetadata.Kwargs, "model"), "{{")), "get_where_subquery(")); e != nil {
			return e
		}
	}
	if len(t.DependsOn.Nodes) == 1 {
		return p.byID[t.DependsOn.Nodes[0]]
	}
	return nil
}

func kwString(kw map[string]json.RawMessage, key string) string {
	raw, ok := kw[key]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func kwStrings(kw map[string]json.RawMessage, key string) []string {
	raw, ok := kw[key]
	if !ok {
		return nil
	}
	var ss []string
	if json.Unmarshal(raw, &ss) != nil {
		return nil
	}
	return ss
}

func testWhere(cfg json.RawMessage) string {
	var c struct {
		Where *string `json:"where"`
	}
	if json.Unmarshal(cfg, &c) != nil || c.Where == nil {
		return ""
	}
	return strings.TrimSpace(*c.Where)
}
