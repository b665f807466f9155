package ops

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/mermaid"
	"github.com/ripple-data/ripple/internal/static"
)

// GetNodeInput names a node.
type GetNodeInput struct {
	NodeID string `json:"node_id" jsonschema:"unique id or name of a model, seed, snapshot or source"`
}

// NodeColumnInfo is one output column with its inputs.
type NodeColumnInfo struct {
	Name           string             `json:"name" jsonschema:"column name"`
	Type           string             `json:"type,omitempty" jsonschema:"data type from the catalog"`
	Description    string             `json:"description,omitempty" jsonschema:"column description"`
	Transformation string             `json:"transformation,omitempty" jsonschema:"identity, transformation or aggregation"`
	Inputs         []static.ColumnRef `json:"inputs" jsonschema:"upstream columns it is computed from"`
	Confidence     string             `json:"confidence,omitempty" jsonschema:"weakest edge: exact, inferred or unknown"`
}

// GetNodeResult is one node with its column-level inputs.
type GetNodeResult struct {
	UniqueID     string            `json:"unique_id" jsonschema:"unique id"`
	Name         string            `json:"name" jsonschema:"node name"`
	ResourceType string            `json:"resource_type" jsonschema:"model, seed, snapshot, source, ..."`
	Materialized string            `json:"materialized,omitempty" jsonschema:"materialization"`
	Relation     string            `json:"relation,omitempty" jsonschema:"database relation"`
	Description  string            `json:"description,omitempty" jsonschema:"node description"`
	Parents      []string          `json:"parents" jsonschema:"parent unique ids"`
	Children     []string          `json:"children" jsonschema:"child unique ids"`
	Columns      []NodeColumnInfo  `json:"columns" jsonschema:"output columns with their inputs"`
	RowInputs    []static.RowInput `json:"row_inputs" jsonschema:"columns that shape the rows"`
	Opaque       bool              `json:"opaque" jsonschema:"its column lineage is unknown"`
	OpaqueReason string            `json:"opaque_reason,omitempty" jsonschema:"why"`
	Diagnostics  []string          `json:"diagnostics" jsonschema:"what limited the analysis"`
}

// LineageInput focuses the lineage graph.
type LineageInput struct {
	Focus     []string `json:"focus" jsonschema:"nodes (name or unique id) or columns (node.column) to start from"`
	Direction string   `json:"direction,omitempty" jsonschema:"upstream, downstream or both (default both)"`
	Depth     int      `json:"depth,omitempty" jsonschema:"maximum hops (default unlimited)"`
	Level     string   `json:"level,omitempty" jsonschema:"model (default) or column"`
	Format    string   `json:"format,omitempty" jsonschema:"json (default) or mermaid"`
}

// LineageEdge is one edge of the lineage graph.
type LineageEdge struct {
	From string `json:"from" jsonschema:"upstream node (or node.column)"`
	To   string `json:"to" jsonschema:"downstream node (or node.column)"`
}

// LineageResult is the connected part of the graph around the focus.
type LineageResult struct {
	Nodes     []string      `json:"nodes" jsonschema:"nodes (or node.column) reached, sorted"`
	Edges     []LineageEdge `json:"edges" jsonschema:"edges between them"`
	Truncated bool          `json:"truncated" jsonschema:"true when cut at 300 nodes"`
	Mermaid   string        `json:"mermaid,omitempty" jsonschema:"the graph as Mermaid, with format mermaid"`
}

// OpaqueInput has no parameters.
type OpaqueInput struct{}

// OpaqueModel is a model whose column lineage is unknown.
type OpaqueModel struct {
	Node   string   `json:"node" jsonschema:"unique id"`
	Reason string   `json:"reason" jsonschema:"why its column lineage is unknown"`
	Reads  []string `json:"reads" jsonschema:"relations it reads"`
}

// OpaqueResult lists opaque models.
type OpaqueResult struct {
	Models []OpaqueModel `json:"models" jsonschema:"opaque models, sorted"`
	Total  int           `json:"total" jsonschema:"opaque models"`
	Share  float64       `json:"share_of_models" jsonschema:"opaque / analyzed models"`
}

const maxLineageNodes = 300

func addNodeOps(r *Registry) {
	Add(r, Spec{Name: "get_node", Memoize: true, Title: "Get node", Positional: "node_id",
		Description: "One node with its columns: each output column's inputs (transformation identity / transformation / aggregation) and confidence, " +
			"the row-shaping inputs (join / filter / group_by / sort / window), parents and children, and diagnostics (opaque SQL, unmatched relations)."},
		getNode)
	Add(r, Spec{Name: "lineage", Memoize: true, Title: "Lineage",
		Description: "The connected part of the model graph (level=model) or column graph (level=column) around focus nodes or node.column, upstream " +
			"and/or downstream with a depth limit, as nodes and edges and optionally Mermaid. Capped at 300 nodes with truncated=true."},
		lineageOp)
	Add(r, Spec{Name: "list_opaque", Memoize: true, Title: "List opaque models",
		Description: "Every model whose column lineage is unknown, with the reason (unparseable SQL, Python model, star over unknown columns, table function, " +
			"unresolved reference) and the relations it reads. Opaque models are always treated as impacted."},
		func(ctx context.Context, s *Session, _ *OpaqueInput) (*OpaqueResult, error) {
			pl, err := s.ProjectLineage(ctx, false)
			if err != nil {
				return nil, err
			}
			res := &OpaqueResult{Models: []OpaqueModel{}}
			for id, m := range pl.Models {
				if m.Opaque {
					reads := append([]string{}, m.Parents...)
					reads = append(reads, m.Unmatched...)
					res.Models = append(res.Models, OpaqueModel{Node: id, Reason: m.OpaqueReason, Reads: reads})
				}
			}
			sort.Slice(res.Models, func(i, j int) bool { return res.Models[i].Node < res.Models[j].Node })
			res.Total = len(res.Models)
			if len(pl.Models) > 0 {
				res.Share = float64(res.Total) / float64(len(pl.Models))
			}
			return res, nil
		})
}

func getNode(ctx context.Context, s *Session, in *GetNodeInput) (*GetNodeResult, error) {
	p, err := s.Project(ctx)
	if err != nil {
		return nil, err
	}
	n, err := p.Current.Manifest.Lookup(in.NodeID)
	if err != nil {
		return nil, err
	}
	cmp, err := s.Comparison(ctx)
	if err != nil {
		return nil, err
	}
	res := &GetNodeResult{UniqueID: n.UniqueID, Name: n.Name, ResourceType: n.ResourceType, Materialized: n.Materialized(),
		Relation: n.RelationName, Description: n.Description, Parents: cmp.Graph.Parents(n.UniqueID), Children: cmp.Graph.Children(n.UniqueID),
		Columns: []NodeColumnInfo{}, RowInputs: []static.RowInput{}, Diagnostics: []string{}}
	types := map[string]string{}
	for _, c := range p.Current.Columns(n.UniqueID) {
		types[strings.ToLower(c.Name)] = c.Type
	}
	desc := func(col string) string {
		for _, c := range n.Columns {
			if strings.EqualFold(c.Name, col) {
				return c.Description
			}
		}
		return ""
	}
	pl, err := s.ProjectLineage(ctx, false)
	if err != nil {
		return nil, err
	}
	ml, hasLineage := pl.Models[n.UniqueID]
	switch {
	case hasLineage && !ml.Opaque:
		sl, err := s.staticLineage(ctx)
		if err != nil {
			return nil, err
		}
		cols, _ := sl.ModelColumns(n.UniqueID)
		conf := map[string]string{}
		for _, c := range ml.Columns {
			conf[strings.ToLower(c.Name)] = worstConfidence(c.Deps)
		}
		for _, c := range cols {
			res.Columns = append(res.Columns, NodeColumnInfo{Name: c.Column, Type: types[strings.ToLower(c.Column)], Description: desc(c.Column),
				Transformation: c.Transformation, Inputs: orEmpty(c.Inputs), Confidence: conf[strings.ToLower(c.Column)]})
		}
		res.RowInputs = append(res.RowInputs, sl.RowInputs(n.UniqueID)...)
		for _, u := range ml.Unmatched {
			res.Diagnostics = append(res.Diagnostics, "reads a relation that is not in the manifest: "+u)
		}
	default:
		if hasLineage {
			res.Opaque, res.OpaqueReason = true, ml.OpaqueReason
			res.Diagnostics = append(res.Diagnostics, "column lineage unknown: "+ml.OpaqueReason)
		}
		for _, c := range p.Current.Columns(n.UniqueID) {
			res.Columns = append(res.Columns, NodeColumnInfo{Name: c.Name, Type: c.Type, Description: desc(c.Name), Inputs: []static.ColumnRef{}})
		}
	}
	return res, nil
}

func worstConfidence(deps []cll.ColumnDep) string {
	worst := ""
	rank := map[cll.Confidence]int{cll.Exact: 1, cll.Inferred: 2, cll.Unknown: 3}
	for _, d := range deps {
		if rank[d.Confidence] > rank[cll.Confidence(worst)] {
			worst = string(d.Confidence)
		}
	}
	if worst == "" {
		return string(cll.Exact)
	}
	return worst
}

func orEmpty(c []static.ColumnRef) []static.ColumnRef {
	if c == nil {
		return []static.ColumnRef{}
	}
	return c
}

func lineageOp(ctx context.Context, s *Session, in *LineageInput) (*LineageResult, error) {
	if len(in.Focus) == 0 {
		return nil, fmt.Errorf("focus is required: name at least one node or node.column")
	}
	up := in.Direction == "" || in.Direction == "both" || in.Direction == "upstream"
	down := in.Direction == "" || in.Direction == "both" || in.Direction == "downstream"
	if !up && !down {
		return nil, fmt.Errorf("direction must be upstream, downstream or both, not %q", in.Direction)
	}
	depth := in.Depth
	if depth <= 0 {
		depth = 1 << 30
	}
	p, err := s.Project(ctx)
	if err != nil {
		return nil, err
	}
	cmp, err := s.Comparison(ctx)
	if err != nil {
		return nil, err
	}
	res := &LineageResult{Nodes: []string{}, Edges: []LineageEdge{}}
	type step func(string) []string
	var next func(bool) step
	var start []string
	switch in.Level {
	case "", "model":
		for _, f := range in.Focus {
			n, err := p.Current.Manifest.Lookup(f)
			if err != nil {
				if bn, berr := p.Base.Manifest.Lookup(f); berr == nil {
					n = bn
				} else if i := strings.LastIndexByte(f, '.'); i > 0 {
					// node.column at level model: say which level traces columns.
					if cn, cerr := p.Current.Manifest.Lookup(f[:i]); cerr == nil {
						return nil, fmt.Errorf("%w: %q is not a node; to trace column %q of %s pass level column", dbt.ErrNotFound, f, f[i+1:], cn.UniqueID)
					}
					return nil, err
				} else {
					return nil, err
				}
			}
			start = append(start, n.UniqueID)
		}
		// Data tests hang off every model; the lineage of data does not include them.
		noTests := func(f func(string) []string) step {
			return func(id string) []string {
				var out []string
				for _, n := range f(id) {
					if node, ok := cmp.Graph.Node(n); ok && (node.ResourceType == dbt.Test || node.ResourceType == dbt.UnitTest) {
						continue
					}
					out = append(out, n)
				}
				return out
			}
		}
		next = func(upward bool) step {
			if upward {
				return noTests(cmp.Graph.Parents)
			}
			return noTests(cmp.Graph.Children)
		}
	case "column":
		pl, err := s.ProjectLineage(ctx, false)
		if err != nil {
			return nil, err
		}
		for _, f := range in.Focus {
			i := strings.LastIndexByte(f, '.')
			if i < 0 {
				return nil, fmt.Errorf("column focus must be node.column, got %q", f)
			}
			n, err := p.Current.Manifest.Lookup(f[:i])
			if err != nil {
				return nil, err
			}
			if err := checkColumn(n.UniqueID, f[i+1:], nodeColumns(p, pl, n.UniqueID)); err != nil {
				return nil, err
			}
			start = append(start, n.UniqueID+"\x00"+f[i+1:])
		}
		conv := func(f func(cll.NodeColumn) []cll.NodeColumn) step {
			return func(k string) []string {
				node, col, _ := strings.Cut(k, "\x00")
				var out []string
				for _, nc := range f(cll.NodeColumn{Node: node, Column: col}) {
					out = append(out, nc.Node+"\x00"+nc.Column)
				}
				return out
			}
		}
		next = func(upward bool) step {
			if upward {
				return conv(pl.ColumnParents)
			}
			return conv(pl.ColumnChildren)
		}
	default:
		return nil, fmt.Errorf("level must be model or column, not %q", in.Level)
	}
	seen := map[string]bool{}
	edges := map[LineageEdge]bool{}
	for _, dir := range []bool{true, false} {
		if (dir && !up) || (!dir && !down) {
			continue
		}
		f := next(dir)
		type item struct {
			k string
			d int
		}
		queue := []item{}
		for _, s := range start {
			seen[s] = true
			queue = append(queue, item{s, 0})
		}
		for len(queue) > 0 {
			it := queue[0]
			queue = queue[1:]
			if it.d >= depth {
				continue
			}
			for _, nb := range f(it.k) {
				e := LineageEdge{From: nb, To: it.k}
				if !dir {
					e = LineageEdge{From: it.k, To: nb}
				}
				edges[e] = true
				if !seen[nb] {
					if len(seen) >= maxLineageNodes {
						res.Truncated = true
						continue
					}
					seen[nb] = true
					queue = append(queue, item{nb, it.d + 1})
				}
			}
		}
	}
	label := func(k string) string { return strings.Replace(k, "\x00", ".", 1) }
	for k := range seen {
		res.Nodes = append(res.Nodes, label(k))
	}
	sort.Strings(res.Nodes)
	for e := range edges {
		if seen[e.From] && seen[e.To] {
			res.Edges = append(res.Edges, LineageEdge{From: label(e.From), To: label(e.To)})
		}
	}
	sort.Slice(res.Edges, func(i, j int) bool {
		if res.Edges[i].From != res.Edges[j].From {
			return res.Edges[i].From < res.Edges[j].From
		}
		return res.Edges[i].To < res.Edges[j].To
	})
	if in.Format == "mermaid" {
		var b strings.Builder
		b.WriteString(mermaid.Header)
		ids := map[string]string{}
		for i, n := range res.Nodes {
			ids[n] = fmt.Sprintf("n%d", i)
			b.WriteString(mermaid.NodeLine(ids[n], mermaid.Box, mermaid.Escape(n)))
		}
		for _, e := range res.Edges {
			b.WriteString(mermaid.EdgeLine(ids[e.From], ids[e.To]))
		}
		res.Mermaid = b.String()
	}
	return res, nil
}

func lowerCol(c cll.NodeColumn) cll.NodeColumn {
	return cll.NodeColumn{Node: c.Node, Column: strings.ToLower(c.Column)}
}
