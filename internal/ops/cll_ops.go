package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
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
	NodeID         string `json:"node_id" jsonschema:"unique id or name of the model"`
	Column         string `json:"column,omitempty" jsonschema:"restrict to this column's upstream and downstream lineage"`
	ChangeAnalysis bool   `json:"change_analysis,omitempty" jsonschema:"add change_status per column and change_category per node (base vs current)"`
}

// CLLNode is a node of the column-lineage graph.
type CLLNode struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	PackageName    string   `json:"package_name"`
	ResourceType   string   `json:"resource_type"`
	SourceName     string   `json:"source_name,omitempty"`
	Opaque         bool     `json:"opaque,omitempty"`
	OpaqueReason   string   `json:"opaque_reason,omitempty"`
	ChangeStatus   string   `json:"change_status,omitempty"`
	ChangeCategory string   `json:"change_category,omitempty"`
	Columns        []string `json:"columns"`
}

// CLLColumn is one column with its direct dependencies.
type CLLColumn struct {
	ID                 string           `json:"id"`
	TableID            string           `json:"table_id"`
	Name               string           `json:"name"`
	Type               string           `json:"type,omitempty"`
	TransformationType string           `json:"transformation_type"`
	ChangeStatus       string           `json:"change_status,omitempty"`
	DependsOn          []cll.NodeColumn `json:"depends_on"`
}

// CLLResult is column-level lineage around a node or column.
type CLLResult struct {
	Nodes     map[string]*CLLNode   `json:"nodes"`
	Columns   map[string]*CLLColumn `json:"columns"`
	ParentMap map[string][]string   `json:"parent_map"`
	ChildMap  map[string][]string   `json:"child_map"`
}

// AnalyzeModelInput names a model.
type AnalyzeModelInput struct {
	ModelID string `json:"model_id" jsonschema:"unique id or name of the model"`
}

// AnalyzeModelResult is a model's SQL structure and its direct downstream.
type AnalyzeModelResult struct {
	ModelID    string              `json:"model_id"`
	Opaque     bool                `json:"opaque"`
	Reason     string              `json:"opaque_reason,omitempty"`
	Structure  *cll.ModelStructure `json:"structure"`
	Downstream struct {
		Models  []string         `json:"models"`
		Columns []cll.NodeColumn `json:"columns"`
	} `json:"downstream"`
}

// ColumnImpactInput names changed columns.
type ColumnImpactInput struct {
	NodeID  string   `json:"node_id" jsonschema:"unique id or name of the changed model"`
	Columns []string `json:"columns,omitempty" jsonschema:"changed columns (default: every column of the model)"`
}

// SQLLineageInput is one query to analyze.
type SQLLineageInput struct {
	Dialect string                       `json:"dialect,omitempty" jsonschema:"duckdb, postgres, redshift, snowflake, bigquery, databricks or generic (default generic)"`
	SQL     string                       `json:"sql" jsonschema:"one SELECT statement"`
	Schema  map[string]map[string]string `json:"schema,omitempty" jsonschema:"upstream tables: {table: {column: type}}; column order matters for star expansion (the CLI keeps the file's order)"`
	// order keeps the column order of Schema when the caller knows it.
	order map[string][]string
}

// SQLLineageResult is the corpus shape: columns in output order, row deps.
type SQLLineageResult struct {
	Columns      map[string]cll.CorpusColumn `json:"columns"`
	RowDeps      []string                    `json:"row_deps"`
	Opaque       bool                        `json:"opaque,omitempty"`
	OpaqueReason string                      `json:"opaque_reason,omitempty"`
	names        []string
}

// MarshalJSON keeps the output-column order, which callers match positions by.
func (r *SQLLineageResult) MarshalJSON() ([]byte, error) {
	cr := &cll.CorpusResult{Names: r.names, Columns: r.Columns, RowDeps: r.RowDeps, Opaque: r.Opaque, OpaqueReason: r.OpaqueReason}
	return json.Marshal(cr)
}

func addCLLOps(r *Registry) {
	Add(r, Spec{Name: "get_cll", Memoize: true, Title: "Column-level lineage", Positional: "node_id",
		Description: "Column-level lineage around a model (or one column): nodes {id, name, resource_type, opaque, change_status, change_category, columns}, " +
			"columns {id = <node_id>_<column>, transformation_type source/passthrough/renamed/derived/aggregate, depends_on [{node, column}], change_status}, " +
			"parent_map and child_map. Opaque models (unparseable SQL, Python) say why; their lineage is unknown, not empty."},
		getCLL, nil)
	Add(r, Spec{Name: "analyze_model", Memoize: true, Title: "Analyze model SQL", Positional: "model_id",
		Description: "The structure of a model's compiled SQL: refs (CTE names excluded), projections with source columns, filters, joins with type and condition, " +
			"group by, having, order by, aggregations, distinct, subquery/CTE/set-operation flags, and its direct downstream models and columns."},
		analyzeModel, nil)
	Add(r, Spec{Name: "column_impact", Memoize: true, Title: "Column impact",
		Description: "Where changed columns reach downstream: impacted columns (reason value/row_set/opaque, with the evidence chain), impacted models, and models that " +
			"read the changed model but none of the changed columns (not_reached, with the columns they do read). Opaque models are always reached."},
		func(ctx context.Context, s *Session, in *ColumnImpactInput) (*cll.ImpactResult, error) {
			pl, id, err := lineageOf(ctx, s, in.NodeID)
			if err != nil {
				return nil, err
			}
			var start []cll.NodeColumn
			cols := in.Columns
			if len(cols) == 0 {
				for _, c := range pl.Models[id].Columns {
					cols = append(cols, c.Name)
				}
			}
			for _, c := range cols {
				start = append(start, cll.NodeColumn{Node: id, Column: c})
			}
			return pl.Impact(start), nil
		}, nil)
	Add(r, Spec{Name: "sql_lineage", Title: "SQL lineage", CustomCLI: true,
		Description: "Column lineage of one SQL query against given upstream schemas, without a dbt project: per output column its deps (table.column) and kind, " +
			"and the row-shaping deps. The CLI form reads files: ripple sql-lineage --dialect D --schema S.json --sql Q.sql --json."},
		func(ctx context.Context, s *Session, in *SQLLineageInput) (*SQLLineageResult, error) {
			return SQLLineage(*in)
		}, nil)
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
	q, err := cll.AnalyzeSQL(dialect, in.SQL, schema)
	if err != nil {
		return nil, err
	}
	cr := cll.CorpusShape(q)
	return &SQLLineageResult{Columns: cr.Columns, RowDeps: cr.RowDeps, Opaque: cr.Opaque, OpaqueReason: cr.OpaqueReason, names: cr.Names}, nil
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
	res := &AnalyzeModelResult{ModelID: id, Opaque: m.Opaque, Reason: m.OpaqueReason, Structure: m.ModelStructure()}
	if m.Opaque && strings.Contains(strings.ToLower(m.OpaqueReason), "compiled") {
		return nil, fmt.Errorf("%s has no compiled SQL (%s): run `dbt compile` or `dbt docs generate` first", id, m.OpaqueReason)
	}
	res.Downstream.Models = []string{}
	res.Downstream.Columns = []cll.NodeColumn{}
	seen := map[string]bool{}
	g := directColumns(pl)
	for _, c := range m.Columns {
		for _, d := range g.down(cll.NodeColumn{Node: id, Column: c.Name}) {
			if d.Node == id {
				continue
			}
			res.Downstream.Columns = append(res.Downstream.Columns, d)
			if !seen[d.Node] {
				seen[d.Node] = true
				res.Downstream.Models = append(res.Downstream.Models, d.Node)
			}
		}
	}
	sort.Strings(res.Downstream.Models)
	return res, nil
}

func getCLL(ctx context.Context, s *Session, in *GetCLLInput) (*CLLResult, error) {
	pl, id, err := lineageOf(ctx, s, in.NodeID)
	if err != nil {
		return nil, err
	}
	p, _ := s.Project(ctx)
	res := &CLLResult{Nodes: map[string]*CLLNode{}, Columns: map[string]*CLLColumn{}, ParentMap: map[string][]string{}, ChildMap: map[string][]string{}}
	// Collect the columns to show: the focus, and everything up and down from it.
	var focus []cll.NodeColumn
	if in.Column != "" {
		focus = []cll.NodeColumn{{Node: id, Column: in.Column}}
	} else {
		for _, c := range pl.Models[id].Columns {
			focus = append(focus, cll.NodeColumn{Node: id, Column: c.Name})
		}
	}
	include := map[cll.NodeColumn]bool{}
	walk := func(start []cll.NodeColumn, next func(cll.NodeColumn) []cll.NodeColumn) {
		queue := append([]cll.NodeColumn(nil), start...)
		for len(queue) > 0 && len(include) < 5000 {
			c := queue[0]
			queue = queue[1:]
			for _, n := range next(c) {
				if !include[n] {
					include[n] = true
					queue = append(queue, n)
				}
			}
		}
	}
	for _, f := range focus {
		include[f] = true
	}
	walk(focus, pl.Upstream)
	walk(focus, pl.Downstream)

	var changes map[string]cll.ChangeAnalysis
	if in.ChangeAnalysis {
		changes = map[string]cll.ChangeAnalysis{}
		if base, err := s.ProjectLineage(ctx, true); err == nil {
			for nid := range nodesOf(include) {
				b, okb := base.Models[nid]
				c, okc := pl.Models[nid]
				if okb && okc {
					changes[nid] = cll.CompareModel(b, c)
				}
			}
		}
	}
	cmp, _ := s.Comparison(ctx)
	// Per-node lookups by lower-cased column name, built once per node: a
	// scan per column made a wide model (40,000 columns) quadratic.
	modelCols := map[string]map[string][]int{}
	colTypes := map[string]map[string]string{}
	statuses := map[string]map[string]string{}
	for nc := range include {
		node := res.Nodes[nc.Node]
		if node == nil {
			node = &CLLNode{ID: nc.Node, Columns: []string{}}
			if n, ok := cmp.Graph.Node(nc.Node); ok {
				node.Name, node.PackageName, node.ResourceType, node.SourceName = n.Name, n.PackageName, n.ResourceType, n.SourceName
			}
			if m, ok := pl.Models[nc.Node]; ok {
				node.Opaque, node.OpaqueReason = m.Opaque, m.OpaqueReason
			}
			if st, ok := cmp.State[nc.Node]; ok && in.ChangeAnalysis {
				node.ChangeStatus = st.ChangeStatus
			}
			if ca, ok := changes[nc.Node]; ok {
				node.ChangeCategory = ca.Category
			}
			res.Nodes[nc.Node] = node
		}
		colID := nc.Node + "_" + nc.Column
		node.Columns = append(node.Columns, colID)
		col := &CLLColumn{ID: colID, TableID: nc.Node, Name: nc.Column, TransformationType: "source", DependsOn: []cll.NodeColumn{}}
		lower := strings.ToLower(nc.Column)
		if m, ok := pl.Models[nc.Node]; ok {
			byName, ok := modelCols[nc.Node]
			if !ok {
				byName = map[string][]int{}
				for i, mc := range m.Columns {
					k := strings.ToLower(mc.Name)
					byName[k] = append(byName[k], i)
				}
				modelCols[nc.Node] = byName
			}
			for _, i := range byName[lower] {
				mc := m.Columns[i]
				col.TransformationType = string(mc.Kind)
				for _, d := range mc.Deps {
					dep := cll.NodeColumn{Node: d.Node, Column: d.Column}
					if dep.Node == "" {
						dep.Node = d.Relation
					}
					col.DependsOn = append(col.DependsOn, dep)
				}
			}
			if m.Opaque {
				col.TransformationType = "unknown"
			}
		}
		types, ok := colTypes[nc.Node]
		if !ok {
			types = map[string]string{}
			for _, cc := range p.Current.Columns(nc.Node) {
				types[strings.ToLower(cc.Name)] = cc.Type
			}
			colTypes[nc.Node] = types
		}
		if t, ok := types[lower]; ok {
			col.Type = t
		}
		if ca, ok := changes[nc.Node]; ok {
			st, ok := statuses[nc.Node]
			if !ok {
				st = columnStatuses(ca)
				statuses[nc.Node] = st
			}
			col.ChangeStatus = st[lower]
		}
		res.Columns[colID] = col
	}
	for nid, node := range res.Nodes {
		sort.Strings(node.Columns)
		for _, par := range cmp.Graph.Parents(nid) {
			if _, ok := res.Nodes[par]; ok {
				res.ParentMap[nid] = append(res.ParentMap[nid], par)
				res.ChildMap[par] = append(res.ChildMap[par], nid)
			}
		}
	}
	for _, m := range []map[string][]string{res.ParentMap, res.ChildMap} {
		for k := range m {
			sort.Strings(m[k])
		}
	}
	return res, nil
}

func nodesOf(cols map[cll.NodeColumn]bool) map[string]bool {
	out := map[string]bool{}
	for c := range cols {
		out[c.Node] = true
	}
	return out
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
