package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/selector"
)

// ProjectLineage returns the column lineage of one build, computed once per
// loaded project. The content-keyed cache outlives reloads, so after a
// rebuild only the models whose SQL or upstream columns changed are re-analyzed.
func (s *Session) ProjectLineage(ctx context.Context, base bool) (*cll.ProjectLineage, error) {
	key := "cll.current"
	if base {
		key = "cll.base"
	}
	v, err := s.Cached(ctx, key, func(p *dbt.Project) (any, error) {
		env := p.Current
		if base {
			env = p.Base
		}
		return cll.AnalyzeProject(ctx, env, s.cllCache)
	})
	if err != nil {
		return nil, err
	}
	return v.(*cll.ProjectLineage), nil
}

// GetCLLInput selects the lineage to return.
type GetCLLInput struct {
	NodeID         string `json:"node_id,omitempty" jsonschema:"model, seed, snapshot or source (default: every changed node in the default package scope)"`
	Column         string `json:"column,omitempty" jsonschema:"trace one column of node_id"`
	ChangeAnalysis bool   `json:"change_analysis,omitempty" jsonschema:"add change_status, change_category, impacted, verdict (default false)"`
}

// ColumnRef names a column of a node.
type ColumnRef struct {
	Node   string `json:"node" jsonschema:"node id (or relation)"`
	Column string `json:"column" jsonschema:"column name"`
}

// CLLColumn is one column with its direct dependencies.
type CLLColumn struct {
	ID                 string      `json:"id" jsonschema:"<node_id>_<column>"`
	TableID            string      `json:"table_id" jsonschema:"its node id"`
	Name               string      `json:"name" jsonschema:"column name"`
	Type               string      `json:"type,omitempty" jsonschema:"data type"`
	TransformationType string      `json:"transformation_type" jsonschema:"source, passthrough, renamed, derived or unknown"`
	IsAggregate        bool        `json:"is_aggregate,omitempty" jsonschema:"derived by an aggregate"`
	ChangeStatus       string      `json:"change_status,omitempty" jsonschema:"added, removed or modified"`
	DependsOn          []ColumnRef `json:"depends_on" jsonschema:"direct inputs"`
}

// CLLNode is a node of the column-lineage graph.
type CLLNode struct {
	ID             string                `json:"id" jsonschema:"unique id"`
	Name           string                `json:"name" jsonschema:"node name"`
	PackageName    string                `json:"package_name" jsonschema:"package"`
	ResourceType   string                `json:"resource_type" jsonschema:"model, seed, snapshot or source"`
	SourceName     string                `json:"source_name,omitempty" jsonschema:"for sources"`
	ChangeStatus   string                `json:"change_status,omitempty" jsonschema:"added, removed or modified"`
	ChangeCategory string                `json:"change_category,omitempty" jsonschema:"breaking, partial_breaking, non_breaking or unknown"`
	Columns        map[string]*CLLColumn `json:"columns" jsonschema:"its columns by name"`
	Impacted       *bool                 `json:"impacted,omitempty" jsonschema:"verdict is impacted"`
	Verdict        string                `json:"verdict,omitempty" jsonschema:"impacted, ruled_out or not_impacted"`
	Opaque         bool                  `json:"opaque,omitempty" jsonschema:"lineage unknown (not empty)"`
	OpaqueReason   string                `json:"opaque_reason,omitempty" jsonschema:"why"`
}

// CLLResult is column-level lineage around a node, a column or the change.
type CLLResult struct {
	Nodes     map[string]*CLLNode   `json:"nodes" jsonschema:"nodes by id"`
	Columns   map[string]*CLLColumn `json:"columns" jsonschema:"columns by id"`
	ParentMap map[string][]string   `json:"parent_map" jsonschema:"node and column ids to their parents"`
	ChildMap  map[string][]string   `json:"child_map" jsonschema:"ids to their children"`
	Truncated bool                  `json:"truncated,omitempty" jsonschema:"cut at 5,000 of total_columns"`
	// TotalColumns is set with Truncated, so a caller knows how much was cut.
	TotalColumns int `json:"total_columns,omitempty" jsonschema:"with truncated: columns before the cut"`
}

// AnalyzeModelInput names a model.
type AnalyzeModelInput struct {
	ModelID string `json:"model_id" jsonschema:"model unique id (or name)"`
}

// Projection is one output column of a model's SQL.
type Projection struct {
	Name          string   `json:"name" jsonschema:"column"`
	SourceColumns []string `json:"source_columns" jsonschema:"inputs, as node.column"`
	IsAggregate   bool     `json:"is_aggregate" jsonschema:"aggregate"`
	IsDerived     bool     `json:"is_derived" jsonschema:"computed"`
}

// SQLJoin is one join of a model's SQL.
type SQLJoin struct {
	Table     string `json:"table" jsonschema:"joined table"`
	JoinType  string `json:"join_type" jsonschema:"INNER, LEFT, ..."`
	Condition string `json:"condition" jsonschema:"ON condition"`
}

// SQLAggregation is one aggregate call.
type SQLAggregation struct {
	Function string `json:"function" jsonschema:"function"`
	Column   string `json:"column" jsonschema:"argument column"`
}

// SQLStructure is the structure of a model's compiled SQL.
type SQLStructure struct {
	Refs            []string         `json:"refs" jsonschema:"tables read (no CTEs)"`
	Relations       []string         `json:"relations" jsonschema:"refs, fully qualified"`
	Projections     []Projection     `json:"projections" jsonschema:"output columns"`
	Filters         []string         `json:"filters" jsonschema:"WHERE conditions"`
	Joins           []SQLJoin        `json:"joins" jsonschema:"joins"`
	GroupBy         []string         `json:"group_by" jsonschema:"GROUP BY"`
	Having          []string         `json:"having" jsonschema:"HAVING"`
	OrderBy         []string         `json:"order_by" jsonschema:"ORDER BY"`
	Aggregations    []SQLAggregation `json:"aggregations" jsonschema:"aggregate calls"`
	CaseExpressions []string         `json:"case_expressions" jsonschema:"CASE expressions as SQL"`
	Distinct        bool             `json:"distinct" jsonschema:"SELECT DISTINCT"`
	HasSubquery     bool             `json:"has_subquery" jsonschema:"has a subquery"`
	HasCTE          bool             `json:"has_cte" jsonschema:"has WITH"`
	IsSetOperation  bool             `json:"is_set_operation" jsonschema:"UNION/INTERSECT/EXCEPT"`
	Unparseable     bool             `json:"unparseable" jsonschema:"SQL did not parse"`
	ParseError      string           `json:"parse_error,omitempty" jsonschema:"parse error"`
	CTENames        []string         `json:"cte_names,omitempty" jsonschema:"CTE names"`
	Qualify         []string         `json:"qualify,omitempty" jsonschema:"QUALIFY"`
	WindowFunctions int              `json:"window_functions" jsonschema:"window function calls"`
}

// AnalyzeModelResult is a model's SQL structure and its direct downstream.
type AnalyzeModelResult struct {
	ModelID    string        `json:"model_id" jsonschema:"model id"`
	Opaque     bool          `json:"opaque" jsonschema:"lineage unknown"`
	Reason     string        `json:"opaque_reason,omitempty" jsonschema:"why"`
	Structure  *SQLStructure `json:"structure" jsonschema:"compiled SQL structure"`
	Downstream struct {
		Models  []string    `json:"models" jsonschema:"direct downstream models"`
		Columns []ColumnRef `json:"columns" jsonschema:"their columns reading it"`
	} `json:"downstream" jsonschema:"one hop down"`
}

// ColumnImpactInput names changed columns.
type ColumnImpactInput struct {
	NodeID  string   `json:"node_id" jsonschema:"unique id or name of the changed model"`
	Columns []string `json:"columns,omitempty" jsonschema:"changed columns (default: every column of the model)"`
}

// ImpactedColumn is a column reached by a change.
type ImpactedColumn struct {
	Node   string    `json:"node" jsonschema:"unique id of its node"`
	Column string    `json:"column" jsonschema:"column name"`
	Reason string    `json:"reason" jsonschema:"value (computed from a changed column), row_set (a changed column filters, joins or groups its rows) or opaque"`
	Via    ColumnRef `json:"via" jsonschema:"the previous hop of the evidence chain"`
	Root   ColumnRef `json:"root" jsonschema:"the changed column the chain starts from"`
	Depth  int       `json:"depth" jsonschema:"hops from the changed column"`
}

// ImpactedModel summarises the impact on one model.
type ImpactedModel struct {
	Node    string   `json:"node" jsonschema:"unique id"`
	Columns []string `json:"columns" jsonschema:"its impacted columns"`
	Opaque  bool     `json:"opaque" jsonschema:"opaque models are always reached"`
	Verdict string   `json:"verdict" jsonschema:"its impact_analysis verdict for the actual change"`
}

// UnreachedModel reads the changed model but none of the changed columns.
type UnreachedModel struct {
	Node    string   `json:"node" jsonschema:"unique id"`
	Reads   []string `json:"reads" jsonschema:"the changed model's columns it does read"`
	Verdict string   `json:"verdict" jsonschema:"its impact_analysis verdict for the actual change"`
}

// ColumnImpactResult is the downstream impact of changed columns.
type ColumnImpactResult struct {
	Changed    []ColumnRef      `json:"changed" jsonschema:"the changed columns"`
	Columns    []ImpactedColumn `json:"columns" jsonschema:"every impacted column with its evidence"`
	Models     []ImpactedModel  `json:"models" jsonschema:"impacted models"`
	NotReached []UnreachedModel `json:"not_reached" jsonschema:"readers of the changed model that read none of the changed columns"`
	// The semantic layer and exposures the columns reach (impact.ColumnReach).
	ImpactedExposures []impact.ReachedExposure `json:"impacted_exposures" jsonschema:"exposures reading a reached model or metric"`
	ImpactedMetrics   []impact.Reached         `json:"impacted_metrics" jsonschema:"metrics reading a reached column"`
}

// SQLLineageInput is one query to analyze.
type SQLLineageInput struct {
	Dialect string                       `json:"dialect,omitempty" jsonschema:"generic (default), bigquery, databricks, duckdb, postgres, redshift, snowflake, spark or trino (or an adapter alias); any other value is refused"`
	SQL     string                       `json:"sql" jsonschema:"one SELECT statement"`
	Schema  map[string]map[string]string `json:"schema,omitempty" jsonschema:"upstream tables: {table: {column: type}}; column order matters for star expansion (the CLI keeps the file's order)"`
	// order keeps the column order of Schema when the caller knows it.
	order map[string][]string
}

// SQLLineageColumn is one output column of a query.
type SQLLineageColumn struct {
	Deps []string `json:"deps" jsonschema:"table.column it is computed from"`
	Kind string   `json:"kind" jsonschema:"source, passthrough, renamed or derived"`
}

// SQLLineageResult is the corpus shape: columns in output order, row deps.
type SQLLineageResult struct {
	Columns      map[string]SQLLineageColumn `json:"columns" jsonschema:"output columns (in output order in the JSON)"`
	RowDeps      []string                    `json:"row_deps" jsonschema:"table.column that filter, join or group the rows"`
	Opaque       bool                        `json:"opaque,omitempty" jsonschema:"true when the query could not be analysed"`
	OpaqueReason string                      `json:"opaque_reason,omitempty" jsonschema:"why"`
	names        []string
}

// MarshalJSON keeps the output-column order, which callers match positions by.
func (r *SQLLineageResult) MarshalJSON() ([]byte, error) {
	cols := make(map[string]cll.CorpusColumn, len(r.Columns))
	for k, c := range r.Columns {
		cols[k] = cll.CorpusColumn{Deps: c.Deps, Kind: c.Kind}
	}
	cr := &cll.CorpusResult{Names: r.names, Columns: cols, RowDeps: r.RowDeps, Opaque: r.Opaque, OpaqueReason: r.OpaqueReason}
	return json.Marshal(cr)
}

func addCLLOps(r *Registry) {
	Add(r, Spec{Name: "get_cll", Memoize: true, Title: "Column-level lineage", Positional: "node_id",
		Description: "Column-level lineage of a node or one column (default: every changed node), up and downstream: nodes, columns " +
			"(transformation_type, depends_on), parent_map, child_map. An opaque model's lineage is unknown, not empty."},
		getCLL)
	Add(r, Spec{Name: "analyze_model", Memoize: true, Title: "Analyze model SQL", Positional: "model_id",
		Description: "Structure of a model's compiled SQL (refs, projections, filters, joins, aggregations, case_expressions, flags) and its direct downstream."},
		analyzeModel)
	Add(r, Spec{Name: "column_impact", Memoize: true, Title: "Column impact",
		Description: "Where changed columns reach downstream: impacted columns (reason value/row_set/opaque, with the evidence chain), impacted models, and models that " +
			"read the changed model but none of the changed columns (not_reached, with the columns they do read), and the exposures and metrics they reach. Opaque models are always reached."},
		columnImpact)
	Add(r, Spec{Name: "sql_lineage", Title: "SQL lineage", CustomCLI: true,
		Description: "Column lineage of one SQL query against given upstream schemas, without a dbt project: per output column its deps (table.column) and kind, " +
			"and the row-shaping deps. The CLI form reads files: ripple sql-lineage --dialect D --schema S.json --sql Q.sql --json."},
		func(ctx context.Context, s *Session, in *SQLLineageInput) (*SQLLineageResult, error) {
			return SQLLineage(*in)
		})
}

func columnImpact(ctx context.Context, s *Session, in *ColumnImpactInput) (*ColumnImpactResult, error) {
	pl, id, err := lineageOf(ctx, s, in.NodeID)
	if err != nil {
		return nil, err
	}
	cols := in.Columns
	if len(cols) > 0 {
		p, _ := s.Project(ctx)
		if err := checkColumns("columns", pl.Models[id].Name, cols, knownColumns(p, pl, id)); err != nil {
			return nil, err
		}
	}
	if len(cols) == 0 {
		for _, c := range pl.Models[id].Columns {
			cols = append(cols, c.Name)
		}
	}
	start := make([]cll.NodeColumn, 0, len(cols))
	for _, c := range cols {
		start = append(start, cll.NodeColumn{Node: id, Column: c})
	}
	ir := pl.Impact(start)
	v, err := Verdicts(ctx, s)
	if err != nil {
		return nil, err
	}
	ref := func(c cll.NodeColumn) ColumnRef { return ColumnRef{Node: c.Node, Column: c.Column} }
	res := &ColumnImpactResult{Changed: []ColumnRef{}, Columns: []ImpactedColumn{}, Models: []ImpactedModel{}, NotReached: []UnreachedModel{}}
	for _, c := range ir.Changed {
		res.Changed = append(res.Changed, ref(c))
	}
	for _, c := range ir.Columns {
		res.Columns = append(res.Columns, ImpactedColumn{Node: c.Node, Column: c.Column, Reason: c.Reason, Via: ref(c.Via), Root: ref(c.Root), Depth: c.Depth})
	}
	for _, m := range ir.Models {
		res.Models = append(res.Models, ImpactedModel{Node: m.Node, Columns: m.Columns, Opaque: m.Opaque, Verdict: v.Verdict(m.Node)})
	}
	for _, m := range ir.NotReached {
		res.NotReached = append(res.NotReached, UnreachedModel{Node: m.Node, Reads: m.Reads, Verdict: v.Verdict(m.Node)})
	}
	res.ImpactedExposures, res.ImpactedMetrics = []impact.ReachedExposure{}, []impact.Reached{}
	if cmp, err := s.Comparison(ctx); err == nil {
		reach := impact.ColumnReach(cmp, pl, id, cols)
		res.ImpactedExposures, res.ImpactedMetrics = reach.ImpactedExposures, reach.ImpactedMetrics
	}
	return res, nil
}

// SQLLineage analyzes one query (the sql_lineage operation).
func SQLLineage(in SQLLineageInput) (*SQLLineageResult, error) {
	schema := cll.Schema{}
	for t, cols := range in.Schema {
		if order, ok := in.order[t]; ok {
			schema[t] = order
			continue
		}
		names := make([]string, 0, len(cols))
		for c := range cols {
			names = append(names, c)
		}
		sort.Strings(names)
		schema[t] = names
	}
	dialect := in.Dialect
	if dialect == "" {
		dialect = "generic"
	}
	if err := checkSQLDialect(dialect); err != nil {
		return nil, err
	}
	q, err := cll.AnalyzeSQL(dialect, in.SQL, schema)
	if err != nil {
		return nil, err
	}
	cr := cll.CorpusShape(q)
	cols := make(map[string]SQLLineageColumn, len(cr.Columns))
	for k, c := range cr.Columns {
		cols[k] = SQLLineageColumn{Deps: c.Deps, Kind: c.Kind}
	}
	return &SQLLineageResult{Columns: cols, RowDeps: cr.RowDeps, Opaque: cr.Opaque, OpaqueReason: cr.OpaqueReason, names: cr.Names}, nil
}

// SQLDialects lists the dialects sql_lineage reads: generic (the union of
// the warehouses' syntax) and every warehouse record (aliases too).
func SQLDialects() []string {
	return append([]string{"generic"}, dialect.Supported()...)
}

// checkSQLDialect refuses a dialect Ripple has no record of: parsing it as
// generic SQL would give lineage under the wrong folding and keywords.
func checkSQLDialect(name string) error {
	if strings.EqualFold(name, "generic") {
		return nil
	}
	if _, ok := dialect.Lookup(name); ok {
		return nil
	}
	err := fmt.Errorf("unknown dialect %q: Ripple reads %s", name, strings.Join(SQLDialects(), ", "))
	return &InputError{Err: &paramError{"dialect", "is invalid: " + err.Error(), err}}
}

// DecodeOrderedSchema reads {table: {column: type}} keeping column order.
func DecodeOrderedSchema(data []byte) (map[string]map[string]string, map[string][]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	schema := map[string]map[string]string{}
	order := map[string][]string{}
	expect := func(d json.Delim) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok != d {
			return fmt.Errorf("schema must be {table: {column: type}}, found %v", tok)
		}
		return nil
	}
	if err := expect('{'); err != nil {
		return nil, nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		table, _ := tok.(string)
		if err := expect('{'); err != nil {
			return nil, nil, err
		}
		schema[table] = map[string]string{}
		for dec.More() {
			ct, err := dec.Token()
			if err != nil {
				return nil, nil, err
			}
			col, _ := ct.(string)
			var typ any
			if err := dec.Decode(&typ); err != nil {
				return nil, nil, err
			}
			s, _ := typ.(string)
			schema[table][col] = s
			order[table] = append(order[table], col)
		}
		if err := expect('}'); err != nil {
			return nil, nil, err
		}
	}
	return schema, order, expect('}')
}

// WithSchemaOrder attaches the column order read from a schema file.
func (in *SQLLineageInput) WithSchemaOrder(order map[string][]string) { in.order = order }

// lineageOf finds a model in the current build's column lineage.
func lineageOf(ctx context.Context, s *Session, nameOrID string) (*cll.ProjectLineage, string, error) {
	if strings.TrimSpace(nameOrID) == "" {
		return nil, "", fmt.Errorf("node_id is required")
	}
	p, err := s.Project(ctx)
	if err != nil {
		return nil, "", err
	}
	n, err := p.Current.Manifest.Lookup(nameOrID)
	if err != nil {
		return nil, "", err
	}
	pl, err := s.ProjectLineage(ctx, false)
	if err != nil {
		return nil, "", err
	}
	if _, ok := pl.Models[n.UniqueID]; !ok {
		return nil, "", fmt.Errorf("%s is a %s: column-level lineage covers models with SQL (seeds and sources appear as upstream columns of models)", n.UniqueID, n.ResourceType)
	}
	return pl, n.UniqueID, nil
}

func analyzeModel(ctx context.Context, s *Session, in *AnalyzeModelInput) (*AnalyzeModelResult, error) {
	pl, id, err := lineageOf(ctx, s, in.ModelID)
	if err != nil {
		return nil, err
	}
	m := pl.Models[id]
	if m.Opaque && strings.Contains(strings.ToLower(m.OpaqueReason), "compiled") {
		return nil, fmt.Errorf("%s has no compiled SQL (%s): run `dbt compile` or `dbt docs generate` first", id, m.OpaqueReason)
	}
	p, err := s.Project(ctx)
	if err != nil {
		return nil, err
	}
	res := &AnalyzeModelResult{ModelID: id, Opaque: m.Opaque, Reason: m.OpaqueReason, Structure: sqlStructure(m.ModelStructure())}
	if n, ok := p.Current.Manifest.Node(id); ok {
		res.Structure.CaseExpressions = caseExpressions(m.Dialect, n.CompiledCode)
	}
	res.Downstream.Models = []string{}
	res.Downstream.Columns = []ColumnRef{}
	seen := map[string]bool{}
	for _, c := range m.Columns {
		for _, d := range pl.ColumnChildren(cll.NodeColumn{Node: id, Column: c.Name}) {
			if d.Node == id {
				continue
			}
			res.Downstream.Columns = append(res.Downstream.Columns, ColumnRef{Node: d.Node, Column: d.Column})
			if !seen[d.Node] {
				seen[d.Node] = true
				res.Downstream.Models = append(res.Downstream.Models, d.Node)
			}
		}
	}
	sort.Strings(res.Downstream.Models)
	return res, nil
}

// sqlStructure is the contract shape of the column-lineage analysis.
func sqlStructure(ms *cll.ModelStructure) *SQLStructure {
	st := &SQLStructure{
		Refs: tableNames(ms.Refs), Relations: orEmptyStrings(ms.Refs), Filters: orEmptyStrings(ms.Filters), GroupBy: orEmptyStrings(ms.GroupBy),
		Having: orEmptyStrings(ms.Having), OrderBy: orEmptyStrings(ms.OrderBy), CaseExpressions: []string{},
		Distinct: ms.Distinct, HasSubquery: ms.HasSubquery, HasCTE: ms.HasCTE, IsSetOperation: ms.IsSetOperation,
		Unparseable: ms.Unparseable, ParseError: ms.ParseError, CTENames: ms.CTENames, Qualify: ms.QualifyFilters, WindowFunctions: ms.WindowFunctions,
		Projections: []Projection{}, Joins: []SQLJoin{}, Aggregations: []SQLAggregation{},
	}
	for _, p := range ms.Projections {
		st.Projections = append(st.Projections, Projection{Name: p.Name, SourceColumns: orEmptyStrings(p.SourceColumns), IsAggregate: p.IsAggregate, IsDerived: p.IsDerived})
	}
	for _, j := range ms.Joins {
		st.Joins = append(st.Joins, SQLJoin{Table: j.Table, JoinType: j.JoinType, Condition: j.Condition})
	}
	for _, a := range ms.Aggregations {
		st.Aggregations = append(st.Aggregations, SQLAggregation{Function: a.Function, Column: a.Column})
	}
	return st
}

// tableNames are the last parts of qualified relation names, as the peer
// lists refs ("db"."schema"."orders" → orders).
func tableNames(rels []string) []string {
	out := []string{}
	for _, r := range rels {
		name := r[strings.LastIndexByte(r, '.')+1:]
		if name = strings.Trim(name, "\"`[]"); !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func orEmptyStrings(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// maxCLLColumns caps get_cll; the result says when it was cut.
const maxCLLColumns = 5000

// cllNodeTypes are the nodes column lineage has columns for.
var cllNodeTypes = map[string]bool{dbt.Model: true, dbt.Seed: true, dbt.Snapshot: true, dbt.Source: true}

func getCLL(ctx context.Context, s *Session, in *GetCLLInput) (*CLLResult, error) {
	if in.NodeID == "" && in.Column != "" {
		return nil, fmt.Errorf("column %q needs node_id: the unique id of the node it belongs to", in.Column)
	}
	p, err := s.Project(ctx)
	if err != nil {
		return nil, err
	}
	cmp, err := s.Comparison(ctx)
	if err != nil {
		return nil, err
	}
	pl, err := s.ProjectLineage(ctx, false)
	if err != nil {
		return nil, err
	}
	// The anchors: one node (or one of its columns), or every changed node.
	var anchors []string
	if in.NodeID != "" {
		n, err := p.Current.Manifest.Lookup(in.NodeID)
		if err != nil {
			return nil, err
		}
		if !cllNodeTypes[n.ResourceType] {
			return nil, fmt.Errorf("%s is a %s: column-level lineage covers models, seeds, snapshots and sources", n.UniqueID, n.ResourceType)
		}
		anchors = []string{n.UniqueID}
	} else {
		// The changed nodes in the package scope every operation defaults
		// to (selector.DefaultPackages), as lineage_diff shows them.
		sel := selector.New(cmp.Graph, cmp.State, p.Current.Manifest.Metadata.ProjectName)
		for id := range cmp.State {
			if n, ok := cmp.Graph.Node(id); ok && cllNodeTypes[n.ResourceType] && sel.InScope(n, nil) {
				if _, inCurrent := p.Current.Manifest.Node(id); inCurrent {
					anchors = append(anchors, id)
				}
			}
		}
		sort.Strings(anchors)
	}
	var focus []cll.NodeColumn
	for _, id := range anchors {
		if in.Column != "" {
			if err := checkColumn(id, in.Column, nodeColumns(p, pl, id)); err != nil {
				return nil, err
			}
			focus = append(focus, cll.NodeColumn{Node: id, Column: in.Column})
			continue
		}
		for _, c := range nodeColumns(p, pl, id) {
			focus = append(focus, cll.NodeColumn{Node: id, Column: c})
		}
	}
	res := &CLLResult{Nodes: map[string]*CLLNode{}, Columns: map[string]*CLLColumn{}, ParentMap: map[string][]string{}, ChildMap: map[string][]string{}}
	sg := pl.Subgraph(focus, cll.DirBoth, maxCLLColumns)
	if sg.Truncated {
		res.Truncated, res.TotalColumns = true, sg.Total
	}
	// include maps each column, by its case-folded key, to its spelling.
	include := make(map[cll.NodeColumn]cll.NodeColumn, len(sg.Columns))
	for _, c := range sg.Columns {
		include[lowerCol(c)] = c
	}
	// Nodes: those of the columns, and, unless one column is traced, the
	// anchors' ancestors and descendants.
	nodeIDs := map[string]bool{}
	for c := range include {
		nodeIDs[c.Node] = true
	}
	if in.Column == "" {
		for _, id := range anchors {
			nodeIDs[id] = true
			for _, dir := range []func(string) []string{cmp.Graph.Parents, cmp.Graph.Children} {
				walkNodes(id, dir, func(n string) bool {
					node, ok := cmp.Graph.Node(n)
					if !ok || !cllNodeTypes[node.ResourceType] {
						return false
					}
					nodeIDs[n] = true
					return true
				})
			}
		}
	}
	var changes map[string]cll.ChangeAnalysis
	var verdicts *impact.Verdicts
	if in.ChangeAnalysis {
		v, err := Verdicts(ctx, s)
		if err != nil {
			return nil, err
		}
		verdicts = v
		changes = map[string]cll.ChangeAnalysis{}
		base, err := s.ProjectLineage(ctx, true)
		if err != nil {
			return nil, fmt.Errorf("change_analysis needs the base build's column lineage: %w", err)
		}
		for nid := range nodeIDs {
			b, okb := base.Models[nid]
			c, okc := pl.Models[nid]
			if okb && okc {
				changes[nid] = cll.CompareModel(b, c)
			}
		}
	}
	for id := range nodeIDs {
		node := &CLLNode{ID: id, Columns: map[string]*CLLColumn{}}
		if n, ok := cmp.Graph.Node(id); ok {
			node.Name, node.PackageName, node.ResourceType, node.SourceName = n.Name, n.PackageName, n.ResourceType, n.SourceName
		}
		if m, ok := pl.Models[id]; ok {
			node.Opaque, node.OpaqueReason = m.Opaque, m.OpaqueReason
		}
		if in.ChangeAnalysis {
			if st, ok := cmp.State[id]; ok {
				node.ChangeStatus = st.ChangeStatus
			}
			if ca, ok := changes[id]; ok {
				node.ChangeCategory = ca.Category
			}
			node.Verdict = verdicts.Verdict(id)
			impacted := node.Verdict == impact.VerdictImpacted
			node.Impacted = &impacted
		}
		res.Nodes[id] = node
	}
	types := map[cll.NodeColumn]string{}
	for id := range nodeIDs {
		for _, c := range p.Current.Columns(id) {
			types[lowerCol(cll.NodeColumn{Node: id, Column: c.Name})] = c.Type
		}
	}
	colID := func(node, col string) string { return node + "_" + col }
	// Lookups by lower-cased column name are built once per node: a scan per
	// column made a wide model (40,000 columns) quadratic.
	catalogNames := map[string]map[string]string{}
	statuses := map[string]map[string]string{}
	for key, nc := range include {
		col := &CLLColumn{TableID: nc.Node, Name: nc.Column, TransformationType: string(cll.KindSource), DependsOn: []ColumnRef{}, Type: types[key]}
		if m, ok := pl.Models[nc.Node]; ok {
			if mc, ok := m.Column(nc.Column); ok {
				col.Name = mc.Name
				col.TransformationType, col.IsAggregate = transformationType(mc.Kind)
				for _, d := range mc.Deps {
					dep := ColumnRef{Node: d.Node, Column: d.Column}
					if dep.Node == "" {
						dep.Node = d.Relation
					}
					col.DependsOn = append(col.DependsOn, dep)
				}
			}
			if m.Opaque {
				col.TransformationType = "unknown"
			}
		} else {
			names, ok := catalogNames[nc.Node]
			if !ok {
				names = map[string]string{}
				for _, c := range p.Current.Columns(nc.Node) {
					names[strings.ToLower(c.Name)] = c.Name
				}
				catalogNames[nc.Node] = names
			}
			if name, ok := names[strings.ToLower(nc.Column)]; ok {
				col.Name = name
			}
		}
		if ca, ok := changes[nc.Node]; ok {
			st, ok := statuses[nc.Node]
			if !ok {
				st = columnStatuses(ca)
				statuses[nc.Node] = st
			}
			col.ChangeStatus = st[strings.ToLower(col.Name)]
		}
		col.ID = colID(nc.Node, col.Name)
		res.Columns[col.ID] = col
		if node := res.Nodes[nc.Node]; node != nil {
			node.Columns[col.Name] = col
		}
	}
	link := func(child, parent string) {
		res.ParentMap[child] = append(res.ParentMap[child], parent)
		res.ChildMap[parent] = append(res.ChildMap[parent], child)
	}
	for id := range res.Nodes {
		for _, par := range cmp.Graph.Parents(id) {
			if _, ok := res.Nodes[par]; ok {
				link(id, par)
			}
		}
	}
	// The returned columns of each node by lower-cased name, for linking a
	// dependency to every column it names (names may differ only in case).
	returned := map[string]map[string][]string{}
	for _, col := range res.Columns {
		byName := returned[col.TableID]
		if byName == nil {
			byName = map[string][]string{}
			returned[col.TableID] = byName
		}
		k := strings.ToLower(col.Name)
		byName[k] = append(byName[k], col.Name)
	}
	for id, col := range res.Columns {
		for _, d := range col.DependsOn {
			if _, ok := include[lowerCol(cll.NodeColumn{Node: d.Node, Column: d.Column})]; ok {
				for _, name := range returned[d.Node][strings.ToLower(d.Column)] {
					link(id, colID(d.Node, name))
				}
			}
		}
	}
	for _, m := range []map[string][]string{res.ParentMap, res.ChildMap} {
		for k := range m {
			sort.Strings(m[k])
			m[k] = slices.Compact(m[k])
		}
	}
	return res, nil
}

// nodeColumns are the columns of a node by name: a model's resolved output
// columns, else (seeds, sources, opaque models) the catalog's.
func nodeColumns(p *dbt.Project, pl *cll.ProjectLineage, id string) []string {
	var out []string
	if m, ok := pl.Models[id]; ok && !m.Opaque {
		for _, c := range m.Columns {
			out = append(out, c.Name)
		}
		return out
	}
	for _, c := range p.Current.Columns(id) {
		out = append(out, c.Name)
	}
	return out
}

// checkColumn refuses a column that node does not have, naming the closest
// ones: tracing a misspelt column would return a column that does not
// exist. A node whose columns are unknown (or not all known by name)
// cannot rule a name out.
func checkColumn(node, column string, known []string) error {
	if len(known) == 0 {
		return nil
	}
	for _, c := range known {
		if c == "*" || strings.EqualFold(c, column) {
			return nil
		}
	}
	hint := dbt.SuggestSuffix(column, known)
	if hint == "" {
		hint = fmt.Sprintf("; it has %d columns, which get_node lists", len(known))
	}
	return fmt.Errorf("%w: %s has no column %q%s", dbt.ErrNotFound, node, column, hint)
}

// transformationType maps a column kind to the peer's five transformation
// types: an aggregate is derived (and flagged).
func transformationType(k cll.Kind) (string, bool) {
	switch k {
	case cll.KindSource, cll.KindPassthrough, cll.KindRenamed, cll.KindDerived:
		return string(k), false
	case cll.KindAggregate:
		return string(cll.KindDerived), true
	}
	return "unknown", false
}

// walkNodes visits, breadth first, the nodes reachable from id through
// next; visit returns false to stop at a node.
func walkNodes(id string, next func(string) []string, visit func(string) bool) {
	seen := map[string]bool{id: true}
	queue := []string{id}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, n := range next(cur) {
			if !seen[n] {
				seen[n] = true
				if visit(n) {
					queue = append(queue, n)
				}
			}
		}
	}
}

// columnStatuses maps a lower-cased column name to its change status
// (added before removed before modified).
func columnStatuses(ca cll.ChangeAnalysis) map[string]string {
	out := map[string]string{}
	for _, list := range []struct {
		names  []string
		status string
	}{{ca.Added, "added"}, {ca.Removed, "removed"}, {ca.Modified, "modified"}} {
		for _, n := range list.names {
			if k := strings.ToLower(n); out[k] == "" {
				out[k] = list.status
			}
		}
	}
	return out
}
