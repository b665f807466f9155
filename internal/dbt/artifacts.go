// Package dbt is Ripple's in-memory model of dbt artifacts (manifest, catalog,
// run_results) for the two builds of a project. It decodes only the fields
// Ripple uses, which keeps loading at or below the cost of a generic JSON
// decode even for very large projects.
package dbt

import (
	"encoding/json"
	"time"
)

// Resource types as dbt writes them.
const (
	Model         = "model"
	Seed          = "seed"
	Snapshot      = "snapshot"
	Source        = "source"
	Test          = "test"
	Analysis      = "analysis"
	Operation     = "operation"
	SQLOperation  = "sql_operation"
	Exposure      = "exposure"
	Metric        = "metric"
	SemanticModel = "semantic_model"
	SavedQuery    = "saved_query"
	UnitTest      = "unit_test"
	MacroType     = "macro"
)

// Metadata is the artifact header shared by every dbt artifact.
type Metadata struct {
	SchemaVersion string            `json:"dbt_schema_version"`
	DbtVersion    string            `json:"dbt_version"`
	GeneratedAt   string            `json:"generated_at"`
	InvocationID  string            `json:"invocation_id"`
	ProjectName   string            `json:"project_name"`
	ProjectID     string            `json:"project_id"`
	AdapterType   string            `json:"adapter_type"`
	Env           map[string]string `json:"env,omitempty"`
}

// Checksum is dbt's file checksum (sha256 of the file for models and seeds).
type Checksum struct {
	Name     string `json:"name"`
	Checksum string `json:"checksum"`
}

// DependsOn lists the macros and nodes a node depends on.
type DependsOn struct {
	Macros []string `json:"macros"`
	Nodes  []string `json:"nodes"`
}

// Constraint is a dbt model or column constraint (primary_key, not_null, foreign_key...).
type Constraint struct {
	Type       string   `json:"type"`
	Name       string   `json:"name,omitempty"`
	Expression string   `json:"expression,omitempty"`
	Columns    []string `json:"columns,omitempty"`
	To         string   `json:"to,omitempty"`
	ToColumns  []string `json:"to_columns,omitempty"`
}

// Column is a column documented in YAML (manifest) — not the physical column.
type Column struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	DataType    string          `json:"data_type"`
	Constraints []Constraint    `json:"constraints,omitempty"`
	Tags        []string        `json:"tags,omitempty"`
	Meta        json.RawMessage `json:"meta,omitempty"`
}

// Contract is a model's data contract.
type Contract struct {
	Enforced bool   `json:"enforced"`
	Checksum string `json:"checksum,omitempty"`
}

// TestMetadata identifies a generic test (unique, not_null, relationships...).
type TestMetadata struct {
	Name      string                     `json:"name"`
	Namespace string                     `json:"namespace"`
	Kwargs    map[string]json.RawMessage `json:"kwargs"`
}

// NodeConfig holds the rendered config fields Ripple interprets. The whole
// config is kept raw in Node.ConfigRaw for the selector's config.<key> method.
type NodeConfig struct {
	Enabled      *bool           `json:"enabled"`
	Materialized string          `json:"materialized"`
	Tags         StringOrList    `json:"tags"`
	UniqueKey    StringOrList    `json:"unique_key"`
	PersistDocs  PersistDocs     `json:"persist_docs"`
	Contract     Contract        `json:"contract"`
	Severity     string          `json:"severity"`
	Meta         json.RawMessage `json:"meta,omitempty"`
	Freshness    json.RawMessage `json:"freshness,omitempty"`
}

// PersistDocs is the persist_docs config.
type PersistDocs struct {
	Relation bool `json:"relation"`
	Columns  bool `json:"columns"`
}

// Node is any manifest entry with a unique id: nodes, sources, exposures,
// metrics, semantic models, saved queries and unit tests share this type so
// that graph code needs no type switches.
type Node struct {
	UniqueID         string             `json:"unique_id"`
	Name             string             `json:"name"`
	ResourceType     string             `json:"resource_type"`
	PackageName      string             `json:"package_name"`
	Path             string             `json:"path"`
	OriginalFilePath string             `json:"original_file_path"`
	FQN              []string           `json:"fqn"`
	Alias            string             `json:"alias"`
	Database         string             `json:"database"`
	Schema           string             `json:"schema"`
	Identifier       string             `json:"identifier"` // sources
	SourceName       string             `json:"source_name"`
	RelationName     string             `json:"relation_name"`
	Checksum         Checksum           `json:"checksum"`
	Config           NodeConfig         `json:"-"`
	ConfigRaw        json.RawMessage    `json:"config"`
	UnrenderedConfig json.RawMessage    `json:"unrendered_config"`
	Tags             []string           `json:"tags"`
	Description      string             `json:"description"`
	Columns          map[string]*Column `json:"columns"`
	RawCode          string             `json:"raw_code"`
	RawSQL           string             `json:"raw_sql"` // manifests before v7
	CompiledCode     string             `json:"compiled_code"`
	Language         string             `json:"language"`
	DependsOn        DependsOn          `json:"depends_on"`
	Constraints      []Constraint       `json:"constraints,omitempty"`
	Contract         Contract           `json:"contract"`
	TestMetadata     *TestMetadata      `json:"test_metadata,omitempty"`
	ColumnName       string             `json:"column_name"`
	AttachedNode     string             `json:"attached_node"`
	Version          json.RawMessage    `json:"version,omitempty"`
	Meta             json.RawMessage    `json:"meta,omitempty"`
	// Disabled is set for entries found under the manifest's "disabled" key.
	Disabled bool `json:"-"`
	// SemanticFields (semantic.go): exposures, metrics, semantic models,
	// saved queries and unit tests.
	SemanticFields
}

// Code returns the node's raw code whatever the manifest version.
func (n *Node) Code() string {
	if n.RawCode != "" {
		return n.RawCode
	}
	return n.RawSQL
}

// Materialized returns config.materialized ("" for nodes without one).
func (n *Node) Materialized() string { return n.Config.Materialized }

// Enabled reports whether dbt would build or select the node.
func (n *Node) Enabled() bool {
	if n.Disabled {
		return false
	}
	return n.Config.Enabled == nil || *n.Config.Enabled
}

// RelationIdentifier is the object name in the warehouse: alias, then
// identifier (sources), then name.
func (n *Node) RelationIdentifier() string {
	switch {
	case n.Alias != "":
		return n.Alias
	case n.Identifier != "":
		return n.Identifier
	}
	return n.Name
}

// Manifest is a decoded manifest.json.
type Manifest struct {
	Metadata       Metadata            `json:"metadata"`
	Nodes          map[string]*Node    `json:"nodes"`
	Sources        map[string]*Node    `json:"sources"`
	Macros         map[string]*Macro   `json:"macros"`
	Exposures      map[string]*Node    `json:"exposures"`
	Metrics        map[string]*Node    `json:"metrics"`
	SemanticModels map[string]*Node    `json:"semantic_models"`
	SavedQueries   map[string]*Node    `json:"saved_queries"`
	UnitTests      map[string]*Node    `json:"unit_tests"`
	Disabled       map[string][]*Node  `json:"disabled"`
	ParentMap      map[string][]string `json:"parent_map"`
	ChildMap       map[string][]string `json:"child_map"`

	// SchemaVersion is the N of manifest/vN.json.
	SchemaVersion int `json:"-"`
	// all indexes every enabled entry by unique id; built after decoding.
	all map[string]*Node
}

// Macro is a manifest macro; Ripple needs its checksum-equivalent and deps
// to compute state:modified.macros.
type Macro struct {
	UniqueID    string    `json:"unique_id"`
	Name        string    `json:"name"`
	PackageName string    `json:"package_name"`
	MacroSQL    string    `json:"macro_sql"`
	DependsOn   DependsOn `json:"depends_on"`
}

// Node returns the enabled entry (of any section) with this unique id.
func (m *Manifest) Node(id string) (*Node, bool) {
	n, ok := m.all[id]
	return n, ok
}

// AllNodes returns the enabled entries of every section keyed by unique id.
// The map is shared: callers must not modify it.
func (m *Manifest) AllNodes() map[string]*Node { return m.all }

// DisabledNode returns a disabled entry with this unique id, if any.
func (m *Manifest) DisabledNode(id string) (*Node, bool) {
	if d := m.Disabled[id]; len(d) > 0 {
		return d[0], true
	}
	return nil, false
}

// CatalogColumn is a physical column as the warehouse reported it.
type CatalogColumn struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Comment string `json:"comment,omitempty"`
}

// CatalogTableMeta describes the relation in the warehouse.
type CatalogTableMeta struct {
	Type     string `json:"type"`
	Database string `json:"database"`
	Schema   string `json:"schema"`
	Name     string `json:"name"`
	Comment  string `json:"comment,omitempty"`
	Owner    string `json:"owner,omitempty"`
}

// CatalogEntry is one relation in catalog.json.
type CatalogEntry struct {
	UniqueID string                    `json:"unique_id"`
	Metadata CatalogTableMeta          `json:"metadata"`
	Columns  map[string]*CatalogColumn `json:"columns"`
}

// SortedColumns returns the catalog columns in warehouse order.
func (e *CatalogEntry) SortedColumns() []*CatalogColumn {
	out := make([]*CatalogColumn, 0, len(e.Columns))
	for _, c := range e.Columns {
		out = append(out, c)
	}
	sortColumns(out)
	return out
}

// Catalog is a decoded catalog.json.
type Catalog struct {
	Metadata Metadata                 `json:"metadata"`
	Nodes    map[string]*CatalogEntry `json:"nodes"`
	Sources  map[string]*CatalogEntry `json:"sources"`
}

// Entry returns the catalog entry for a node or source id.
func (c *Catalog) Entry(id string) (*CatalogEntry, bool) {
	if c == nil {
		return nil, false
	}
	if e, ok := c.Nodes[id]; ok {
		return e, true
	}
	e, ok := c.Sources[id]
	return e, ok
}

// RunResult is one entry of run_results.json.
type RunResult struct {
	UniqueID      string  `json:"unique_id"`
	Status        string  `json:"status"`
	ExecutionTime float64 `json:"execution_time"`
	Message       string  `json:"message"`
	Failures      *int64  `json:"failures"`
}

// RunResults is a decoded run_results.json.
type RunResults struct {
	Metadata    Metadata    `json:"metadata"`
	Results     []RunResult `json:"results"`
	ElapsedTime float64     `json:"elapsed_time"`
}

// Env is one build of the project: its artifacts and where they came from.
type Env struct {
	Dir      string
	Manifest *Manifest
	Catalog  *Catalog // nil when catalog.json is absent or unreadable
	// CatalogProblem is why a catalog.json that exists was not read (it is
	// not valid JSON or not a dbt catalog): Ripple then works as without a
	// catalog, as when the file is missing, and surfaces warn with this.
	CatalogProblem error
	RunResults     *RunResults // nil when run_results.json is absent
	// ModTime is the manifest's modification time (artifact age).
	ModTime time.Time
}

// Columns returns the best-known columns of a node in warehouse order:
// the catalog when present, else the YAML-documented columns.
func (e *Env) Columns(id string) []*CatalogColumn {
	if ce, ok := e.Catalog.Entry(id); ok && len(ce.Columns) > 0 {
		return ce.SortedColumns()
	}
	n, ok := e.Manifest.Node(id)
	if !ok || len(n.Columns) == 0 {
		return nil
	}
	out := make([]*CatalogColumn, 0, len(n.Columns))
	for _, c := range n.Columns {
		out = append(out, &CatalogColumn{Name: c.Name, Type: c.DataType, Index: len(out)})
	}
	sortColumns(out)
	return out
}
