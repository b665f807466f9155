// Package static answers questions about a dbt project from its local
// artifacts alone (manifest, catalog, run_results): a project summary, name
// search, an ERD with keys and relationships, test gaps, dbt State freshness
// policies, data discovery for data users (find_data, describe_entity,
// plan_query), a comparison of static column lineage with an observed run-time
// export, and an OpenLineage export. Nothing here talks to a warehouse.
//
// Column-level lineage is an optional dependency: callers pass a Lineage
// (implemented over internal/cll) in Options, and every operation works
// without it; join evidence, lineage coverage and lineage exports light up
// when it is present.
package static

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/dialect"
)

// ErrUnknownEntity is wrapped by errors about a model, seed, snapshot or
// source name that does not exist in the project.
var ErrUnknownEntity = errors.New("unknown entity")

// ErrAmbiguousEntity is wrapped by errors about a name that matches several
// entities. It wraps ErrUnknownEntity (and reads the same), so callers that
// only check for an unknown entity still see one.
var ErrAmbiguousEntity = fmt.Errorf("%w", ErrUnknownEntity)

// ErrNoLineage is wrapped when an operation needs column lineage and none was provided.
var ErrNoLineage = errors.New("column lineage is not available")

// ColumnRef names one column of one node (model, seed, snapshot or source).
type ColumnRef struct {
	Node   string `json:"node" jsonschema:"unique id of the node"`
	Column string `json:"column" jsonschema:"column name"`
}

// ColumnInputs is one output column of a model and the columns it is
// computed from (direct inputs only).
type ColumnInputs struct {
	Column string      `json:"column"`
	Inputs []ColumnRef `json:"inputs"`
	// Transformation is identity, transformation or aggregation ("" when unknown).
	Transformation string `json:"transformation,omitempty"`
}

// RowInput is a column that shapes a model's rows rather than a value.
type RowInput struct {
	Column ColumnRef `json:"column" jsonschema:"the column"`
	// Kind is join, filter, group_by, sort, window or conditional.
	Kind string `json:"kind" jsonschema:"join, filter, group_by, sort, window or conditional"`
}

// JoinEvidence is one equi-join found in a model's SQL (ON a.x = b.y AND ...
// or USING), with both sides traced to physical columns of upstream nodes.
// LeftColumns[i] is joined to RightColumns[i].
type JoinEvidence struct {
	Model        string   `json:"model"`
	LeftNode     string   `json:"left_node"`
	LeftColumns  []string `json:"left_columns"`
	RightNode    string   `json:"right_node"`
	RightColumns []string `json:"right_columns"`
}

// OpaqueNode is a node whose column lineage is unknown.
type OpaqueNode struct {
	Node   string `json:"node" jsonschema:"unique id"`
	Reason string `json:"reason" jsonschema:"why its column lineage is unknown"`
}

// Lineage is what this package needs from column-level lineage
// (internal/cll). It is optional: pass nil and every operation still works.
type Lineage interface {
	// ModelColumns returns a model's output columns with their direct
	// inputs; ok is false when the model has no column lineage (not
	// analyzed, or opaque).
	ModelColumns(modelID string) (cols []ColumnInputs, ok bool)
	// RowInputs returns the columns that shape a model's rows.
	RowInputs(modelID string) []RowInput
	// JoinKeys returns the equi-join keys in a model's SQL.
	JoinKeys(modelID string) []JoinEvidence
	// Opaque lists the nodes whose column lineage is unknown, with reasons.
	Opaque() []OpaqueNode
}

// Options configures a Project.
type Options struct {
	// Lineage is the optional column-level lineage of the project.
	Lineage Lineage
	// Now returns the current time (artifact ages); time.Now when nil.
	Now func() time.Time
	// FileRoots are the directories file inputs (compare_observed) must be
	// in; empty allows any regular file.
	FileRoots []string
}

// Project is a loaded dbt build prepared for static questions. It is safe
// for concurrent use; the ERD is computed once, on first use.
type Project struct {
	env       *dbt.Env
	lin       Lineage
	now       func() time.Time
	fileRoots []string
	dialect   dialect.Dialect
	entities  []*entity // sorted by display name, then id
	byID      map[string]*entity
	byName    map[string][]*entity // lower-case display name, name and id

	erdOnce sync.Once
	erd     *erdGraph

	textOnce sync.Once
	textIdx  *textIndex

	erdMu    sync.Mutex
	erdCache map[erdKey]*ERDResult

	olMu    sync.Mutex
	olCache map[string]*OpenLineageResult

	gapsOnce sync.Once
	allGaps  []TestGap

	miscOnce sync.Once
	counts   map[string]int
	python   int
	analyzed int
	opaque   int
	policies map[string]StatePolicy // by unique id, where configured
	relIdx   relIndex
}

// entity is a relation a data user can query: a model, seed, snapshot or source.
type entity struct {
	node     *dbt.Node
	id       string
	name     string // display name: model name, or source_name.table
	kind     string
	cols     []*dbt.CatalogColumn
	colIdx   map[string]int // lower-case column name → index in cols
	descs    map[string]string
	physical bool // columns come from the catalog (exact warehouse spelling)
	lowCols  []string
	idx      int    // position in Project.entities
	dataset  string // database.schema.identifier
	stem     string // singular entity noun used by naming inference
	layer    string // name prefix such as stg, int, dim, fct ("" for marts)
	lowName  string
}

// New prepares env for static operations. env must have a manifest.
func New(env *dbt.Env, opts Options) *Project {
	p := &Project{env: env, lin: opts.Lineage, now: opts.Now, fileRoots: opts.FileRoots, byID: map[string]*entity{}, byName: map[string][]*entity{}}
	if p.now == nil {
		p.now = time.Now
	}
	d, err := dialect.ForAdapter(env.Manifest.Metadata.AdapterType)
	if err != nil {
		d, _ = dialect.ForAdapter("postgres")
	}
	p.dialect = d
	for id, n := range env.Manifest.AllNodes() {
		switch n.ResourceType {
		case dbt.Model, dbt.Seed, dbt.Snapshot, dbt.Source:
		default:
			continue
		}
		e := &entity{node: n, id: id, name: n.Name, kind: n.ResourceType}
		if n.ResourceType == dbt.Source && n.SourceName != "" {
			e.name = n.SourceName + "." + n.Name
		}
		e.lowName = strings.ToLower(e.name)
		e.cols = env.Columns(id)
		if ce, ok := env.Catalog.Entry(id); ok && len(ce.Columns) > 0 {
			e.physical = true
		}
		e.colIdx = make(map[string]int, len(e.cols))
		e.descs = map[string]string{}
		for i, c := range e.cols {
			e.colIdx[strings.ToLower(c.Name)] = i
		}
		for _, c := range n.Columns {
			if c == nil {
				continue
			}
			if _, ok := e.colIdx[strings.ToLower(c.Name)]; !ok && len(e.cols) > 0 {
				// Documented but not in the catalog: keep it so tests on it resolve.
				e.colIdx[strings.ToLower(c.Name)] = len(e.cols)
				e.cols = append(e.cols, &dbt.CatalogColumn{Name: c.Name, Type: c.DataType, Index: len(e.cols)})
			}
			if c.Description != "" {
				e.descs[strings.ToLower(c.Name)] = c.Description
			}
		}
		if !e.physical {
			// YAML columns carry no order (the manifest keeps them in a map):
			// sort by name so every answer is deterministic.
			sort.SliceStable(e.cols, func(i, j int) bool { return e.cols[i].Name < e.cols[j].Name })
			for i, c := range e.cols {
				e.colIdx[strings.ToLower(c.Name)] = i
			}
		}
		e.lowCols = make([]string, len(e.cols))
		for i, c := range e.cols {
			e.lowCols[i] = strings.ToLower(c.Name)
		}
		e.dataset = datasetName(e)
		e.layer, e.stem = stemOf(n.Name)
		p.entities = append(p.entities, e)
		p.byID[id] = e
	}
	sort.Slice(p.entities, func(i, j int) bool {
		if p.entities[i].name != p.entities[j].name {
			return p.entities[i].name < p.entities[j].name
		}
		return p.entities[i].id < p.entities[j].id
	})
	for i, e := range p.entities {
		e.idx = i
		keys := []string{e.lowName, strings.ToLower(e.id)}
		if e.kind == dbt.Source {
			keys = append(keys, "source:"+e.lowName, strings.ToLower(e.node.Name))
		} else {
			keys = append(keys, strings.ToLower(e.node.PackageName+"."+e.node.Name))
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				p.byName[k] = append(p.byName[k], e)
			}
		}
	}
	return p
}

// Env returns the build the project was prepared from.
func (p *Project) Env() *dbt.Env { return p.env }

// column returns the entity's column with this name (case-insensitive).
func (e *entity) column(name string) (*dbt.CatalogColumn, bool) {
	i, ok := e.colIdx[strings.ToLower(name)]
	if !ok {
		return nil, false
	}
	return e.cols[i], true
}

// colName returns the entity's spelling of a column, or name itself.
func (e *entity) colName(name string) string {
	if c, ok := e.column(name); ok {
		return c.Name
	}
	return name
}

var layerPrefixes = []string{"stg", "staging", "int", "dim", "fct", "fact", "raw", "base", "src", "mart", "rpt", "agg"}

// stemOf splits a relation name into a layer prefix and a singular noun:
// "stg_customers" → ("stg", "customer"), "order_items" → ("", "order_item").
func stemOf(name string) (layer, stem string) {
	s := strings.ToLower(name)
	for _, pfx := range layerPrefixes {
		if strings.HasPrefix(s, pfx+"_") && len(s) > len(pfx)+1 {
			layer, s = pfx, s[len(pfx)+1:]
			break
		}
	}
	return layer, singular(s)
}

func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "ss"), strings.HasSuffix(s, "us"), strings.HasSuffix(s, "is"):
		return s
	case strings.HasSuffix(s, "s") && len(s) > 2:
		return s[:len(s)-1]
	}
	return s
}

// refExpr is how dbt code refers to the entity: {{ ref('x') }} or {{ source('a','b') }}.
func (e *entity) refExpr() string {
	if e.kind == dbt.Source {
		return "{{ source('" + e.node.SourceName + "', '" + e.node.Name + "') }}"
	}
	return "{{ ref('" + e.node.Name + "') }}"
}

// refArg is the ref('x') / source('a', 'b') text used in relationships tests.
func (e *entity) refArg() string {
	if e.kind == dbt.Source {
		return "source('" + e.node.SourceName + "', '" + e.node.Name + "')"
	}
	return "ref('" + e.node.Name + "')"
}

// quoteCol quotes a column of e: catalog names are used as the warehouse
// spells them, YAML names are case-folded first.
func (p *Project) quoteCol(e *entity, col string) string {
	if e != nil && e.physical {
		if c, ok := e.column(col); ok {
			return p.dialect.QuoteIdent(c.Name)
		}
	}
	return p.dialect.QuoteIdent(p.dialect.FoldIdent(col))
}

// quoteAlias quotes a generated table alias.
func (p *Project) quoteAlias(a string) string {
	return p.dialect.QuoteIdent(p.dialect.FoldIdent(a))
}

func clampLimit(v, def, max int) int {
	if v <= 0 {
		return def
	}
	if v > max {
		return max
	}
	return v
}

// misc builds the small caches used by summary, state policies and compare_observed.
func (p *Project) misc() {
	p.miscOnce.Do(func() {
		p.policies = map[string]StatePolicy{}
		for _, e := range p.entities {
			if sp, ok := statePolicy(e); ok {
				p.policies[e.id] = sp
			}
		}
		p.relIdx = p.relationIndex()
		p.counts = map[string]int{}
		for _, n := range p.env.Manifest.AllNodes() {
			p.counts[n.ResourceType]++
			if n.ResourceType == dbt.Model {
				if n.Language == "python" {
					p.python++
				}
				if p.lin != nil {
					if _, ok := p.lin.ModelColumns(n.UniqueID); ok {
						p.analyzed++
					}
				}
			}
		}
		if p.lin != nil {
			p.opaque = len(p.lin.Opaque())
		}
	})
}

func (p *Project) statePolicyOf(e *entity) (StatePolicy, bool) {
	p.misc()
	sp, ok := p.policies[e.id]
	return sp, ok
}
