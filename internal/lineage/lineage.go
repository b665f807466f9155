// Package lineage compares the model graphs of the base and current builds:
// which nodes were added, removed or modified (and how), and which are
// impacted downstream. It is artifact-only and never touches the warehouse.
package lineage

import (
	"sort"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/frame"
)

// Comparison is the graph-level comparison of a project's two builds. It is
// computed once per loaded project and shared by every operation.
type Comparison struct {
	Project *dbt.Project
	Graph   *dbt.Graph
	// State has an entry for every node whose state differs between builds.
	State map[string]dbt.NodeState
	// Impacted holds nodes that are modified (any state change) or downstream
	// of one, following ref edges only.
	Impacted map[string]bool
}

// Compare builds the comparison of p's two builds.
func Compare(p *dbt.Project) *Comparison {
	c := &Comparison{Project: p, Graph: dbt.NewGraph(p.Base.Manifest, p.Current.Manifest)}
	if p.SingleEnv {
		c.State = map[string]dbt.NodeState{}
	} else {
		c.State = dbt.CompareState(p.Base.Manifest, p.Current.Manifest)
		// Ad-hoc operations (recorded by some tools as sql_operation nodes)
		// and analyses build nothing, so their changes impact nothing.
		for id := range c.State {
			if n, ok := c.Graph.Node(id); ok && ignoredTypes[n.ResourceType] {
				delete(c.State, id)
			}
		}
	}
	c.Impacted = make(map[string]bool, len(c.State)*4)
	queue := make([]string, 0, len(c.State))
	for id := range c.State {
		queue = append(queue, id)
	}
	sort.Strings(queue)
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if c.Impacted[id] {
			continue
		}
		c.Impacted[id] = true
		for _, ch := range c.Graph.Children(id) {
			if !c.Impacted[ch] {
				queue = append(queue, ch)
			}
		}
	}
	return c
}

var ignoredTypes = map[string]bool{dbt.SQLOperation: true, dbt.Operation: true, dbt.Analysis: true}

// ViewAllMaxNodes caps view_mode=all results; changed and impacted nodes are kept first.
const ViewAllMaxNodes = 300

// DiffInput selects which part of the graph to return.
type DiffInput struct {
	Select     string   `json:"select,omitempty" jsonschema:"dbt selector."`
	Exclude    string   `json:"exclude,omitempty" jsonschema:"dbt selector to exclude"`
	Packages   []string `json:"packages,omitempty" jsonschema:"packages (default: root project; all if it has no models)"`
	ViewMode   string   `json:"view_mode,omitempty" enum:"changed_models,all" jsonschema:"changed_models (default): changed nodes, their parents and descendants; all: capped at 300"`
	AllowEmpty bool     `json:"allow_empty,omitempty" jsonschema:"accept a select/exclude term naming nothing (default: error)"`
}

// DiffResult is the lineage diff: nodes and edges as compact frames.
type DiffResult struct {
	// Nodes columns: idx, id, name, resource_type, materialized,
	// change_status (added/removed/modified/null), impacted (the peer's),
	// then package_name, modifications and verdict (the refined one).
	Nodes *frame.Frame `json:"nodes" jsonschema:"idx, id, name, resource_type, materialized, change_status, impacted (DAG), package_name, modifications, verdict (impacted, ruled_out, not_impacted)"`
	// Edges columns: from, to (indexes into Nodes; parent → child).
	Edges         *frame.Frame `json:"edges" jsonschema:"from, to: node idx, parent to child"`
	ChangedCount  int          `json:"changed_count" jsonschema:"changed nodes"`
	ImpactedCount int          `json:"impacted_count" jsonschema:"impacted nodes (DAG)"`
	Truncated     bool         `json:"truncated,omitempty" jsonschema:"cut at 300 nodes, changed and impacted first"`
	TotalNodes    int          `json:"total_nodes" jsonschema:"nodes before the cap"`
	ReturnedNodes int          `json:"returned_nodes" jsonschema:"nodes returned"`
	SingleEnv     bool         `json:"single_env" jsonschema:"no base build"`
	Warning       string       `json:"_warning,omitempty" jsonschema:"single-env notice"`
}

// Mismatch is the CI verdict: true when any returned node changed.
func (r *DiffResult) Mismatch() (bool, error) { return r.ChangedCount > 0, nil }

// Diff renders the comparison restricted to the selected node ids.
// verdict, when not nil, gives each node its refined verdict (the impact
// model's; lineage cannot import it) for the verdict column.
func (c *Comparison) Diff(selected []string, viewMode string, verdict func(id string) string) *DiffResult {
	ids := make([]string, 0, len(selected))
	for _, id := range selected {
		if _, ok := c.Graph.Node(id); ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	res := &DiffResult{TotalNodes: len(ids), SingleEnv: c.Project.SingleEnv}
	if c.Project.SingleEnv {
		res.Warning = dbt.SingleEnvWarning
	}
	if viewMode == "all" && len(ids) > ViewAllMaxNodes {
		sort.SliceStable(ids, func(i, j int) bool { return c.rank(ids[i]) < c.rank(ids[j]) })
		ids = ids[:ViewAllMaxNodes]
		sort.Strings(ids)
		res.Truncated = true
	}
	res.ReturnedNodes = len(ids)
	res.Nodes = frame.New(
		[2]string{"idx", frame.Integer}, [2]string{"id", frame.Text}, [2]string{"name", frame.Text},
		[2]string{"resource_type", frame.Text}, [2]string{"materialized", frame.Text},
		[2]string{"change_status", frame.Text}, [2]string{"impacted", frame.Boolean},
		[2]string{"package_name", frame.Text}, [2]string{"modifications", frame.Unknown}, [2]string{"verdict", frame.Text})
	res.Edges = frame.New([2]string{"from", frame.Integer}, [2]string{"to", frame.Integer})
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
		n, _ := c.Graph.Node(id)
		var status, mat any
		var mods []string
		if st, ok := c.State[id]; ok {
			status = st.ChangeStatus
			res.ChangedCount++
			for _, m := range st.Modifications {
				mods = append(mods, string(m))
			}
		}
		if m := n.Materialized(); m != "" {
			mat = m
		}
		if mods == nil {
			mods = []string{}
		}
		if c.Impacted[id] {
			res.ImpactedCount++
		}
		var v any
		if verdict != nil {
			vs := verdict(id)
			v = vs
		}
		res.Nodes.Append(i, id, n.Name, n.ResourceType, mat, status, c.Impacted[id], n.PackageName, mods, v)
	}
	for _, id := range ids {
		for _, p := range c.Graph.Parents(id) {
			if pi, ok := index[p]; ok {
				res.Edges.Append(pi, index[id])
			}
		}
	}
	return res
}

// rank orders nodes for truncation: changed, then impacted, then the rest.
func (c *Comparison) rank(id string) int {
	if _, ok := c.State[id]; ok {
		return 0
	}
	if c.Impacted[id] {
		return 1
	}
	return 2
}
