package static

import (
	"context"
	"fmt"
	"strings"
)

// ERDInput selects what the ERD covers.
type ERDInput struct {
	Select []string `json:"select,omitempty" jsonschema:"entities to center the diagram on (model, seed, snapshot or source names, or unique ids); empty means the whole project"`
	Depth  int      `json:"depth,omitempty" jsonschema:"relationship hops around the selected entities to include (default 1, max 10)"`
	Infer  bool     `json:"infer,omitempty" jsonschema:"also propose keys and relationships from column naming (id, <entity>_id); off by default"`
	All    bool     `json:"all,omitempty" jsonschema:"include entities that have no key and no relationship"`
	Format string   `json:"format,omitempty" jsonschema:"json (default), mermaid or dot; mermaid and dot add the diagram text to the result"`
}

// ERDColumn is one column of an ERD entity.
type ERDColumn struct {
	Name       string `json:"name" jsonschema:"column name"`
	Type       string `json:"type,omitempty" jsonschema:"data type"`
	PrimaryKey bool   `json:"primary_key,omitempty" jsonschema:"part of the primary key"`
	ForeignKey bool   `json:"foreign_key,omitempty" jsonschema:"references another entity"`
	NotNull    bool   `json:"not_null,omitempty" jsonschema:"declared or tested not null"`
}

// ERDEntity is a model, seed, snapshot or source with its keys.
type ERDEntity struct {
	Name         string      `json:"name" jsonschema:"entity name"`
	UniqueID     string      `json:"unique_id" jsonschema:"unique id"`
	ResourceType string      `json:"resource_type" jsonschema:"model, seed, snapshot or source"`
	PrimaryKey   *Key        `json:"primary_key,omitempty" jsonschema:"the primary key"`
	UniqueKeys   []Key       `json:"unique_keys,omitempty" jsonschema:"other unique keys"`
	Columns      []ERDColumn `json:"columns" jsonschema:"columns"`
}

// ERDResult is the entity-relationship diagram.
type ERDResult struct {
	Entities      []ERDEntity    `json:"entities" jsonschema:"entities with their keys"`
	Relationships []Relationship `json:"relationships" jsonschema:"relationships between entities"`
	// JoinEvidence is true when column lineage supplied joins from model SQL.
	JoinEvidence bool     `json:"join_evidence" jsonschema:"true when column lineage supplied joins from model SQL"`
	Diagnostics  []string `json:"diagnostics,omitempty" jsonschema:"what limited the diagram"`
	Format       string   `json:"format" jsonschema:"json, mermaid or dot"`
	Diagram      string   `json:"diagram,omitempty" jsonschema:"the diagram text for mermaid or dot"`
}

// relationships returns the relationships in force: trusted and joined, plus
// inferred ones when infer is set.
func (g *erdGraph) relationships(infer bool) []*Relationship {
	if !infer {
		return g.rels
	}
	out := make([]*Relationship, 0, len(g.rels)+len(g.inferred))
	out = append(out, g.rels...)
	out = append(out, g.inferred...)
	return out
}

// primaryKey returns the trusted primary key, or the inferred one when infer is set.
func (g *erdGraph) primaryKey(id string, infer bool) *Key {
	ks := g.keys[id]
	if ks == nil {
		return nil
	}
	if ks.pk != nil {
		return ks.pk
	}
	if infer {
		return ks.inferredPK
	}
	return nil
}

// ERD returns keys and relationships with their basis and evidence.
func ERD(ctx context.Context, p *Project, in ERDInput) (*ERDResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	format := strings.ToLower(strings.TrimSpace(in.Format))
	switch format {
	case "":
		format = "json"
	case "json", "mermaid", "dot":
	default:
		return nil, fmt.Errorf("unknown ERD format %q: use json, mermaid or dot", in.Format)
	}
	if len(in.Select) == 0 {
		// The whole-project ERD is computed once per (infer, all) and shared.
		full := p.fullERD(in.Infer, in.All)
		res := *full
		res.Entities = append([]ERDEntity{}, full.Entities...)
		res.Relationships = append([]Relationship{}, full.Relationships...)
		res.Diagnostics = append([]string(nil), full.Diagnostics...)
		res.Format = format
		renderERD(&res)
		return &res, nil
	}
	for _, s := range in.Select {
		if _, err := p.resolve(s); err != nil {
			return nil, err
		}
	}
	res := p.buildERD(in)
	res.Format = format
	renderERD(res)
	return res, nil
}

type erdKey struct{ infer, all bool }

func (p *Project) fullERD(infer, all bool) *ERDResult {
	p.erdMu.Lock()
	defer p.erdMu.Unlock()
	k := erdKey{infer, all}
	if r := p.erdCache[k]; r != nil {
		return r
	}
	if p.erdCache == nil {
		p.erdCache = map[erdKey]*ERDResult{}
	}
	r := p.buildERD(ERDInput{Infer: infer, All: all})
	p.erdCache[k] = r
	return r
}

func renderERD(res *ERDResult) {
	switch res.Format {
	case "mermaid":
		res.Diagram = RenderMermaid(res)
	case "dot":
		res.Diagram = RenderDOT(res)
	}
}

// buildERD assembles the ERD for in (select entities already validated by
// resolve inside).
func (p *Project) buildERD(in ERDInput) *ERDResult {
	g := p.graph()
	rels := g.relationships(in.Infer)
	include := map[string]bool{}
	if len(in.Select) > 0 {
		depth := in.Depth
		if depth <= 0 {
			depth = 1
		}
		depth = min(depth, 10)
		for _, s := range in.Select {
			if e, err := p.resolve(s); err == nil {
				include[e.id] = true
			}
		}
		adj := g.adj[0]
		if in.Infer {
			adj = g.adj[1]
		}
		frontier := make([]string, 0, len(include))
		for id := range include {
			frontier = append(frontier, id)
		}
		for d := 0; d < depth && len(frontier) > 0; d++ {
			var next []string
			for _, id := range frontier {
				for _, r := range adj[id] {
					other := r.ToID
					if other == id {
						other = r.FromID
					}
					if !include[other] {
						include[other] = true
						next = append(next, other)
					}
				}
			}
			frontier = next
		}
	} else {
		for _, e := range p.entities {
			if in.All || g.primaryKey(e.id, in.Infer) != nil || len(g.keys[e.id].uniques) > 0 {
				include[e.id] = true
			}
		}
		for _, r := range rels {
			include[r.FromID], include[r.ToID] = true, true
		}
	}
	res := &ERDResult{JoinEvidence: p.lin != nil, Entities: []ERDEntity{}, Relationships: []Relationship{}}
	fkCols := map[colKey]bool{}
	for _, r := range rels {
		if include[r.FromID] && include[r.ToID] {
			res.Relationships = append(res.Relationships, *r)
			for _, c := range r.FromColumns {
				fkCols[colKey{r.FromID, strings.ToLower(c)}] = true
			}
		}
	}
	sortRelValues(res.Relationships)
	for _, e := range p.entities {
		if !include[e.id] {
			continue
		}
		res.Entities = append(res.Entities, p.erdEntity(e, in.Infer, fkCols))
	}
	res.Diagnostics = append(res.Diagnostics, g.diags...)
	if in.Infer {
		res.Diagnostics = append(res.Diagnostics, g.inferDia...)
	}
	return res
}

func (p *Project) erdEntity(e *entity, infer bool, fkCols map[colKey]bool) ERDEntity {
	g := p.graph()
	pk := g.primaryKey(e.id, infer)
	out := ERDEntity{Name: e.name, UniqueID: e.id, ResourceType: e.kind, PrimaryKey: pk, Columns: make([]ERDColumn, 0, len(e.cols))}
	for _, u := range g.keys[e.id].uniques {
		out.UniqueKeys = append(out.UniqueKeys, *u)
	}
	for _, c := range e.cols {
		lc := strings.ToLower(c.Name)
		out.Columns = append(out.Columns, ERDColumn{
			Name: c.Name, Type: c.Type,
			PrimaryKey: pk != nil && containsFold(pk.Columns, c.Name),
			ForeignKey: fkCols[colKey{e.id, lc}],
			NotNull:    g.notNull(e.id, []string{c.Name}),
		})
	}
	return out
}

func adjacency(rels []*Relationship) map[string][]*Relationship {
	adj := map[string][]*Relationship{}
	for _, r := range rels {
		adj[r.FromID] = append(adj[r.FromID], r)
		if r.ToID != r.FromID {
			adj[r.ToID] = append(adj[r.ToID], r)
		}
	}
	return adj
}

func sortRelValues(rs []Relationship) {
	ptrs := make([]*Relationship, len(rs))
	for i := range rs {
		ptrs[i] = &rs[i]
	}
	sortRels(ptrs)
	sorted := make([]Relationship, len(rs))
	for i, r := range ptrs {
		sorted[i] = *r
	}
	copy(rs, sorted)
}

// RenderMermaid renders an ERD as a Mermaid erDiagram. Only key and
// relationship columns are listed; inferred relationships are dotted.
func RenderMermaid(r *ERDResult) string {
	var b strings.Builder
	b.WriteString("erDiagram\n")
	for _, e := range r.Entities {
		fmt.Fprintf(&b, "  %s {\n", mermaidName(e.Name))
		for _, c := range e.Columns {
			if !c.PrimaryKey && !c.ForeignKey {
				continue
			}
			var flags []string
			if c.PrimaryKey {
				flags = append(flags, "PK")
			}
			if c.ForeignKey {
				flags = append(flags, "FK")
			}
			typ := mermaidWord(c.Type)
			if typ == "" {
				typ = "unknown"
			}
			fmt.Fprintf(&b, "    %s %s %s\n", typ, mermaidWord(c.Name), strings.Join(flags, ", "))
		}
		b.WriteString("  }\n")
	}
	for _, rel := range r.Relationships {
		left := "}o" // the referenced side
		switch rel.Cardinality {
		case ManyToOne, OneToOne:
			left = "||"
		}
		right := "o{" // the referencing side
		switch {
		case rel.Cardinality == OneToOne:
			right = "o|"
		case rel.Cardinality == ManyToOne && !rel.Optional:
			right = "|{"
		}
		line := "--"
		if rel.Basis == BasisInferred {
			line = ".."
		}
		label := fmt.Sprintf("%s (%s)", strings.Join(rel.FromColumns, ", "), rel.Basis)
		fmt.Fprintf(&b, "  %s %s%s%s %s : %q\n", mermaidName(rel.To), left, line, right, mermaidName(rel.From), label)
	}
	return b.String()
}

func mermaidName(s string) string {
	w := mermaidWord(s)
	if w == "" {
		return "unnamed"
	}
	return w
}

// mermaidWord keeps letters, digits, _ and -, replacing anything else with _.
func mermaidWord(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return strings.Trim(b.String(), "_")
}

// RenderDOT renders an ERD as a Graphviz digraph: an edge points from the
// referencing entity to the referenced one; inferred edges are dashed.
func RenderDOT(r *ERDResult) string {
	var b strings.Builder
	b.WriteString("digraph erd {\n  rankdir=LR;\n  node [shape=record, fontname=\"Helvetica\"];\n")
	for _, e := range r.Entities {
		var rows []string
		rows = append(rows, dotEscape(e.Name))
		var cols []string
		for _, c := range e.Columns {
			if !c.PrimaryKey && !c.ForeignKey {
				continue
			}
			tag := ""
			if c.PrimaryKey {
				tag += " PK"
			}
			if c.ForeignKey {
				tag += " FK"
			}
			cols = append(cols, dotEscape(c.Name+tag))
		}
		if len(cols) > 0 {
			rows = append(rows, strings.Join(cols, "\\l")+"\\l")
		}
		fmt.Fprintf(&b, "  %q [label=\"{%s}\"];\n", e.Name, strings.Join(rows, "|"))
	}
	for _, rel := range r.Relationships {
		style := "solid"
		if rel.Basis == BasisInferred {
			style = "dashed"
		}
		label := fmt.Sprintf("%s → %s\\n%s, %s", strings.Join(rel.FromColumns, ","), strings.Join(rel.ToColumns, ","), rel.Cardinality, rel.Basis)
		fmt.Fprintf(&b, "  %q -> %q [label=\"%s\", style=%s];\n", rel.From, rel.To, strings.ReplaceAll(label, `"`, `\"`), style)
	}
	b.WriteString("}\n")
	return b.String()
}

func dotEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "{", `\{`, "}", `\}`, "|", `\|`, "<", `\<`, ">", `\>`)
	return r.Replace(s)
}
