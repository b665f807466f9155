package static

import (
	"context"
	"fmt"
	"math/bits"
	"sort"
	"strings"
	"unicode"
)

// UnknownGrain is the grain of an entity without a declared or tested key.
const UnknownGrain = "unknown grain: don't assume one row per anything"

// grain describes what one row of the entity is.
func (p *Project) grain(e *entity) string {
	pk := p.graph().keys[e.id].pk
	if pk == nil {
		return UnknownGrain
	}
	s := "one row per " + strings.Join(pk.Columns, ", ") + " (" + pk.Basis
	if pk.Note != "" {
		s += "; " + pk.Note
	}
	return s + ")"
}

// FindDataInput is a data question in words.
type FindDataInput struct {
	Query string `json:"query" jsonschema:"what you are looking for, in words (e.g. 'customer lifetime value'); matched against names and descriptions"`
	Limit int    `json:"limit,omitempty" jsonschema:"maximum tables (default 10, max 50)"`
}

// FoundColumn is a column that matched the query.
type FoundColumn struct {
	Name        string `json:"name" jsonschema:"column name"`
	Type        string `json:"type,omitempty" jsonschema:"data type"`
	Description string `json:"description,omitempty" jsonschema:"column description"`
}

// FoundTable is a table that matched, with its grain.
type FoundTable struct {
	Name         string        `json:"name" jsonschema:"table name"`
	UniqueID     string        `json:"unique_id" jsonschema:"unique id"`
	ResourceType string        `json:"resource_type" jsonschema:"model, seed, snapshot or source"`
	Description  string        `json:"description,omitempty" jsonschema:"table description"`
	Grain        string        `json:"grain" jsonschema:"one row per what, from declared or tested keys; else unknown grain"`
	Score        int           `json:"score" jsonschema:"relevance (higher is better)"`
	TermsMatched int           `json:"terms_matched" jsonschema:"query terms found"`
	Columns      []FoundColumn `json:"columns,omitempty" jsonschema:"the matching columns"`
}

// FindDataResult lists tables by relevance.
type FindDataResult struct {
	Tables []FoundTable `json:"tables" jsonschema:"matching tables, best first"`
	Total  int          `json:"total" jsonschema:"tables that matched"`
	Hint   string       `json:"hint" jsonschema:"how to go on"`
}

// FindData finds tables and columns by meaning: a name match counts 3, a
// description match 1, and table-level matches count double.
func FindData(ctx context.Context, p *Project, in FindDataInput) (*FindDataResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var terms []string
	for _, t := range words(in.Query) {
		if !stopWords[t] {
			terms = append(terms, singular(t))
		}
	}
	if len(terms) == 0 {
		return nil, fmt.Errorf("find_data needs a query: describe the data you want in a few words")
	}
	if len(terms) > 32 {
		terms = terms[:32]
	}
	limit := clampLimit(in.Limit, 10, 50)
	ti := p.text()
	// Score through the inverted index: a term matches a word it prefixes,
	// once per field.
	entScore := make([]int32, len(p.entities))
	entTerms := make([]uint32, len(p.entities))
	colScore := make([]int32, ti.ncols)
	stamp := make([]uint32, 2*len(p.entities)+2*ti.ncols) // last term (bit) counted per field
	for k, t := range terms {
		bit := uint32(1) << uint(k)
		lo := sort.SearchStrings(ti.vocab, t)
		for w := lo; w < len(ti.vocab) && strings.HasPrefix(ti.vocab[w], t); w++ {
			for _, ps := range ti.postings[w] {
				var slot int
				var weight int32
				switch {
				case ps.col < 0 && ps.field == 0:
					slot, weight = 2*int(ps.ent), 6
				case ps.col < 0:
					slot, weight = 2*int(ps.ent)+1, 2
				case ps.field == 0:
					slot, weight = 2*len(p.entities)+2*int(ps.col), 3
				default:
					slot, weight = 2*len(p.entities)+2*int(ps.col)+1, 1
				}
				if stamp[slot]&bit != 0 {
					continue
				}
				stamp[slot] |= bit
				entScore[ps.ent] += weight
				entTerms[ps.ent] |= bit
				if ps.col >= 0 {
					colScore[ps.col] += weight
				}
			}
		}
	}
	var found []FoundTable
	for i, e := range p.entities {
		if entScore[i] == 0 {
			continue
		}
		found = append(found, FoundTable{Name: e.name, UniqueID: e.id, ResourceType: e.kind,
			Score: int(entScore[i]), TermsMatched: bits.OnesCount32(entTerms[i])})
	}
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if a.TermsMatched != b.TermsMatched {
			return a.TermsMatched > b.TermsMatched
		}
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if kindRank(a.ResourceType) != kindRank(b.ResourceType) {
			return kindRank(a.ResourceType) < kindRank(b.ResourceType)
		}
		return a.Name < b.Name
	})
	res := &FindDataResult{Total: len(found), Tables: []FoundTable{},
		Hint: "describe_entity explains a table (grain, columns, joins); plan_query builds the joins between tables"}
	if len(found) > limit {
		found = found[:limit]
	}
	for i := range found {
		e := p.byID[found[i].UniqueID]
		found[i].Grain = p.grain(e)
		found[i].Description = clip(e.node.Description, 200)
		base := ti.colBase[e.id]
		for ci, c := range e.cols {
			if colScore[base+ci] > 0 && len(found[i].Columns) < 8 {
				found[i].Columns = append(found[i].Columns, FoundColumn{Name: c.Name, Type: c.Type, Description: clip(e.descs[strings.ToLower(c.Name)], 160)})
			}
		}
	}
	res.Tables = append(res.Tables, found...)
	return res, nil
}

var stopWords = map[string]bool{"the": true, "a": true, "an": true, "of": true, "per": true, "by": true, "for": true, "and": true, "or": true, "in": true, "to": true, "with": true, "what": true, "is": true, "are": true, "how": true, "many": true, "much": true, "each": true, "all": true}

type posting struct {
	ent   int32
	col   int32 // global column index, -1 for the entity itself
	field uint8 // 0 name, 1 description
}

// textIndex is an inverted index of the words in entity and column names
// and descriptions.
type textIndex struct {
	vocab    []string    // sorted unique words
	postings [][]posting // per vocab word
	colBase  map[string]int
	ncols    int
}

func (p *Project) text() *textIndex {
	p.textOnce.Do(func() {
		ti := &textIndex{colBase: make(map[string]int, len(p.entities))}
		byWord := map[string][]posting{}
		addWords := func(s string, ps posting) {
			ws := words(s)
			for i, w := range ws {
				dup := false
				for _, prev := range ws[:i] {
					if prev == w {
						dup = true
						break
					}
				}
				if !dup {
					byWord[w] = append(byWord[w], ps)
				}
			}
		}
		for i, e := range p.entities {
			ti.colBase[e.id] = ti.ncols
			addWords(e.name, posting{int32(i), -1, 0})
			addWords(e.node.Description, posting{int32(i), -1, 1})
			for ci, c := range e.cols {
				gc := int32(ti.ncols + ci)
				addWords(c.Name, posting{int32(i), gc, 0})
				addWords(e.descs[strings.ToLower(c.Name)], posting{int32(i), gc, 1})
			}
			ti.ncols += len(e.cols)
		}
		ti.vocab = make([]string, 0, len(byWord))
		for w := range byWord {
			ti.vocab = append(ti.vocab, w)
		}
		sort.Strings(ti.vocab)
		ti.postings = make([][]posting, len(ti.vocab))
		for i, w := range ti.vocab {
			ti.postings[i] = byWord[w]
		}
		p.textIdx = ti
	})
	return p.textIdx
}

// words splits s into lower-case alphanumeric words.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// DescribeEntityInput names the table to explain.
type DescribeEntityInput struct {
	Name  string `json:"name" jsonschema:"model, seed, snapshot or source name (or unique id)"`
	Infer bool   `json:"infer,omitempty" jsonschema:"also show keys and joins guessed from column naming"`
}

// DescribedColumn is a typed column with key and null flags.
type DescribedColumn struct {
	Name        string `json:"name" jsonschema:"column name"`
	Type        string `json:"type,omitempty" jsonschema:"data type"`
	Description string `json:"description,omitempty" jsonschema:"column description"`
	PrimaryKey  bool   `json:"primary_key,omitempty" jsonschema:"part of the primary key"`
	// References is "entity.column" when the column is a foreign key.
	References []string `json:"references,omitempty" jsonschema:"entity.column it references"`
	NotNull    bool     `json:"not_null,omitempty" jsonschema:"declared or tested not null"`
	Unique     bool     `json:"unique,omitempty" jsonschema:"declared or tested unique"`
	Tests      []string `json:"tests,omitempty" jsonschema:"dbt tests on the column"`
}

// JoinInfo is a join to or from the described entity.
type JoinInfo struct {
	Entity string `json:"entity" jsonschema:"the other entity"`
	On     string `json:"on" jsonschema:"join condition"`
	// Cardinality is from the described entity to the other one:
	// many_to_one, one_to_many, one_to_one or unknown.
	Cardinality string     `json:"cardinality" jsonschema:"from this entity to the other: many_to_one, one_to_many, one_to_one or unknown"`
	Basis       string     `json:"basis" jsonschema:"declared, tested, joined or inferred"`
	Evidence    []Evidence `json:"evidence" jsonschema:"the facts behind it"`
}

// DescribeEntityResult explains a table.
type DescribeEntityResult struct {
	Name         string            `json:"name" jsonschema:"entity name"`
	UniqueID     string            `json:"unique_id" jsonschema:"unique id"`
	ResourceType string            `json:"resource_type" jsonschema:"model, seed, snapshot or source"`
	Relation     string            `json:"relation,omitempty" jsonschema:"database relation"`
	Materialized string            `json:"materialized,omitempty" jsonschema:"materialization"`
	Description  string            `json:"description,omitempty" jsonschema:"entity description"`
	Grain        string            `json:"grain" jsonschema:"one row per what; unknown without a trusted key"`
	PrimaryKey   *Key              `json:"primary_key,omitempty" jsonschema:"the primary key with its evidence"`
	UniqueKeys   []Key             `json:"unique_keys,omitempty" jsonschema:"other unique keys"`
	Columns      []DescribedColumn `json:"columns" jsonschema:"typed columns with key and test flags"`
	References   []JoinInfo        `json:"references" jsonschema:"entities it joins to (it holds the foreign key)"`
	ReferencedBy []JoinInfo        `json:"referenced_by" jsonschema:"entities joining to it"`
	StarterQuery string            `json:"starter_query" jsonschema:"a first query in {{ ref() }} form"`
	Notes        []string          `json:"notes,omitempty" jsonschema:"caveats"`
}

// DescribeEntity explains a table: grain, typed columns with key and
// not-null flags, joins in and out with cardinality and evidence, and a
// starter query.
func DescribeEntity(ctx context.Context, p *Project, in DescribeEntityInput) (*DescribeEntityResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e, err := p.resolve(in.Name)
	if err != nil {
		return nil, err
	}
	g := p.graph()
	ks := g.keys[e.id]
	res := &DescribeEntityResult{Name: e.name, UniqueID: e.id, ResourceType: e.kind, Relation: e.node.RelationName,
		Materialized: e.node.Materialized(), Description: e.node.Description, Grain: p.grain(e),
		PrimaryKey: g.primaryKey(e.id, in.Infer), Columns: []DescribedColumn{}, References: []JoinInfo{}, ReferencedBy: []JoinInfo{}}
	if ks.pk == nil && in.Infer && ks.inferredPK != nil {
		res.Notes = append(res.Notes, "the primary key is guessed from naming ("+strings.Join(ks.inferredPK.Columns, ", ")+"); verify it before relying on one row per key")
	}
	for _, u := range ks.uniques {
		res.UniqueKeys = append(res.UniqueKeys, *u)
	}
	refs := map[string][]string{}
	for _, r := range g.relationships(in.Infer) {
		on := joinOn(r)
		if r.FromID == e.id {
			res.References = append(res.References, JoinInfo{Entity: r.To, On: on, Cardinality: r.Cardinality, Basis: r.Basis, Evidence: r.Evidence})
			for i, c := range r.FromColumns {
				refs[strings.ToLower(c)] = append(refs[strings.ToLower(c)], r.To+"."+r.ToColumns[i])
			}
		}
		if r.ToID == e.id && r.FromID != e.id {
			res.ReferencedBy = append(res.ReferencedBy, JoinInfo{Entity: r.From, On: on, Cardinality: invertCardinality(r.Cardinality), Basis: r.Basis, Evidence: r.Evidence})
		}
	}
	for _, c := range e.cols {
		lc := strings.ToLower(c.Name)
		dc := DescribedColumn{Name: c.Name, Type: c.Type, Description: e.descs[lc], References: refs[lc],
			PrimaryKey: res.PrimaryKey != nil && containsFold(res.PrimaryKey.Columns, c.Name),
			NotNull:    g.notNull(e.id, []string{c.Name}),
			Unique:     g.isKeyExactly(e.id, c.Name)}
		for name := range g.tests[colKey{e.id, lc}] {
			dc.Tests = append(dc.Tests, name)
		}
		sort.Strings(dc.Tests)
		res.Columns = append(res.Columns, dc)
	}
	if len(e.cols) == 0 {
		res.Notes = append(res.Notes, "no columns are known: run `dbt docs generate` to produce catalog.json, or document the columns in YAML")
	}
	res.StarterQuery = "select *\nfrom " + e.refExpr() + "\nlimit 10"
	return res, nil
}

func joinOn(r *Relationship) string {
	parts := make([]string, len(r.FromColumns))
	for i := range r.FromColumns {
		parts[i] = r.From + "." + r.FromColumns[i] + " = " + r.To + "." + r.ToColumns[i]
	}
	return strings.Join(parts, " and ")
}

func invertCardinality(c string) string {
	if c == ManyToOne {
		return "one_to_many"
	}
	return c
}
