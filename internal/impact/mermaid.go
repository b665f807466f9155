package impact

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/mermaid"
)

// MaxMermaidChars caps the diagram so it fits in a GitHub comment (65,536
// characters) with room for the rest of the summary.
const MaxMermaidChars = 50000

// Annotation is what the diagram says about one node beyond its change status.
type Annotation struct {
	RowCountDeltaPct *float64 // ▲/▼ x%
	RowCountNote     string   // e.g. "N/A (table_not_found)"
	SchemaChanged    bool
	FailedChecks     int
}

// MermaidInput controls the diagram.
type MermaidInput struct {
	Select     string `json:"select,omitempty" jsonschema:"dbt selector of the nodes to draw (default: changed nodes and their descendants); space = union, comma = intersection"`
	MaxChars   int    `json:"max_chars,omitempty" jsonschema:"size cap in characters (default 50000)"`
	AllowEmpty bool   `json:"allow_empty,omitempty" jsonschema:"accept a select/exclude term naming nothing (default: error)"`
}

// MermaidResult is a rendered diagram.
type MermaidResult struct {
	Mermaid   string `json:"mermaid" jsonschema:"the graph LR source; paste it into a mermaid code block"`
	NodeCount int    `json:"node_count" jsonschema:"nodes drawn"`
	EdgeCount int    `json:"edge_count" jsonschema:"edges drawn"`
	Truncated bool   `json:"truncated" jsonschema:"true when the size cap left nodes out (see omitted_nodes)"`
	// OmittedNodes counts nodes left out by the size cap.
	OmittedNodes int    `json:"omitted_nodes,omitempty" jsonschema:"nodes left out by the size cap"`
	Warning      string `json:"_warning,omitempty" jsonschema:"single-env notice"`
}

// Mermaid draws a deterministic `graph LR` of the given nodes: shapes per
// resource type, styles per change status and verdict (v, the impact model:
// ruled-out nodes get their own style), and "what changed" notes. Node
// order and ids are stable so diagrams diff cleanly between pushes.
func Mermaid(cmp *lineage.Comparison, v *Verdicts, ids []string, notes map[string]Annotation, maxChars int) *MermaidResult {
	if maxChars <= 0 {
		maxChars = MaxMermaidChars
	}
	ids = append([]string(nil), ids...)
	// Changed nodes first, then impacted, so truncation keeps what matters.
	sort.SliceStable(ids, func(i, j int) bool {
		ri, rj := rank(cmp, v, ids[i]), rank(cmp, v, ids[j])
		if ri != rj {
			return ri < rj
		}
		return ids[i] < ids[j]
	})
	res := &MermaidResult{}
	if cmp.Project.SingleEnv {
		res.Warning = dbt.SingleEnvWarning
	}
	// Nodes are admitted in rank order together with their edges to nodes
	// already admitted, so a truncated diagram never shows a node without
	// the lineage that connects it.
	alias := map[string]string{}
	kept := []string{}
	type edge struct{ from, to string }
	var edges []edge
	size := 0
	const footerReserve = 600
	nodeLines := map[string]string{}
	classLines := map[string]string{}
	for _, id := range ids {
		n, ok := cmp.Graph.Node(id)
		if !ok {
			continue
		}
		a := fmt.Sprintf("n%d", len(kept))
		line := mermaid.NodeLine(a, shape(n.ResourceType), label(cmp, v, n, notes[id]))
		clsLine := ""
		if cls := ClassFor(cmp, v, id); cls != "" {
			clsLine = mermaid.ClassLine(a, cls)
		}
		var mine []edge
		cost := len(line) + len(clsLine)
		for _, p := range cmp.Graph.Parents(id) {
			if pa, ok := alias[p]; ok {
				mine = append(mine, edge{pa, a})
				cost += mermaid.EdgeLen(pa, a)
			}
		}
		for _, c := range cmp.Graph.Children(id) {
			if ca, ok := alias[c]; ok {
				mine = append(mine, edge{a, ca})
				cost += mermaid.EdgeLen(a, ca)
			}
		}
		if size+cost+footerReserve > maxChars {
			res.Truncated = true
			res.OmittedNodes = len(ids) - len(kept)
			break
		}
		size += cost
		alias[id] = a
		kept = append(kept, id)
		nodeLines[id], classLines[id] = line, clsLine
		edges = append(edges, mine...)
	}
	// Everything below is ordered by alias so output is stable.
	var body, classes, edgeText strings.Builder
	for _, id := range kept {
		body.WriteString(nodeLines[id])
		classes.WriteString(classLines[id])
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].from != edges[j].from {
			return aliasLess(edges[i].from, edges[j].from)
		}
		return aliasLess(edges[i].to, edges[j].to)
	})
	for _, e := range edges {
		edgeText.WriteString(mermaid.EdgeLine(e.from, e.to))
	}
	res.EdgeCount = len(edges)
	var out strings.Builder
	out.WriteString(mermaid.Header)
	out.WriteString(body.String())
	out.WriteString(edgeText.String())
	out.WriteString("  classDef added fill:#d4edda,stroke:#28a745,color:#000000\n")
	out.WriteString("  classDef removed fill:#f8d7da,stroke:#dc3545,color:#000000\n")
	out.WriteString("  classDef modified fill:#fff3cd,stroke:#ffc107,color:#000000\n")
	out.WriteString("  classDef impacted fill:#ffffff,stroke:#ffc107,color:#000000\n")
	out.WriteString("  classDef ruled_out fill:#ffffff,stroke:#6c757d,stroke-dasharray:4 3,color:#6c757d\n")
	out.WriteString("  classDef unchanged fill:#ffffff,stroke:#d3d3d3,color:#999999\n")
	out.WriteString(classes.String())
	if res.Truncated {
		fmt.Fprintf(&out, "  %%%% truncated: %d of %d nodes shown (size cap %d characters)\n", len(kept), len(ids), maxChars)
	}
	res.Mermaid = out.String()
	res.NodeCount = len(kept)
	return res
}

// aliasLess orders n2 before n10.
func aliasLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

func rank(cmp *lineage.Comparison, v *Verdicts, id string) int {
	if _, ok := cmp.State[id]; ok {
		return 0
	}
	switch v.Verdict(id) {
	case VerdictImpacted:
		return 1
	case VerdictRuledOut:
		return 2
	}
	return 3
}

// Diagram classes beyond the change statuses.
const (
	ClassImpacted  = "impacted"
	ClassRuledOut  = "ruled_out"
	ClassUnchanged = "unchanged"
)

// ClassFor is a node's diagram class: its change status (added, removed,
// modified), else its verdict (impacted, ruled_out), else unchanged.
func ClassFor(cmp *lineage.Comparison, v *Verdicts, id string) string {
	if st, ok := cmp.State[id]; ok {
		return st.ChangeStatus
	}
	switch v.Verdict(id) {
	case VerdictImpacted:
		return ClassImpacted
	case VerdictRuledOut:
		return ClassRuledOut
	}
	return ClassUnchanged
}

// shape picks the Mermaid node shape for a resource type.
func shape(resourceType string) mermaid.Shape {
	switch resourceType {
	case dbt.Source:
		return mermaid.Cylinder
	case dbt.Seed:
		return mermaid.Parallelogram
	case dbt.Snapshot:
		return mermaid.Subroutine
	case dbt.Exposure:
		return mermaid.Flag
	case dbt.Metric, dbt.SemanticModel, dbt.SavedQuery:
		return mermaid.Hexagon
	}
	return mermaid.Box
}

func label(cmp *lineage.Comparison, v *Verdicts, n *dbt.Node, a Annotation) string {
	name := n.Name
	if n.ResourceType == dbt.Source {
		name = n.SourceName + "." + n.Name
	}
	parts := []string{mermaid.Escape(name)}
	var what []string
	if st, ok := cmp.State[n.UniqueID]; ok {
		switch st.ChangeStatus {
		case "added":
			what = append(what, "Added")
		case "removed":
			what = append(what, "Removed")
		default:
			for _, m := range st.Modifications {
				switch m {
				case dbt.ModBody, dbt.ModMacros:
					what = appendOnce(what, "Code")
				case dbt.ModContract:
					what = appendOnce(what, "Contract")
				default:
					what = appendOnce(what, "Config")
				}
			}
		}
	}
	if v.Verdict(n.UniqueID) == VerdictRuledOut {
		what = append(what, "Ruled out by column lineage")
	}
	switch {
	case a.RowCountDeltaPct != nil && *a.RowCountDeltaPct > 0:
		what = append(what, fmt.Sprintf("Row count ▲ %s%%", FormatPct(*a.RowCountDeltaPct)))
	case a.RowCountDeltaPct != nil && *a.RowCountDeltaPct < 0:
		what = append(what, fmt.Sprintf("Row count ▼ %s%%", FormatPct(-*a.RowCountDeltaPct)))
	case a.RowCountNote != "":
		what = append(what, "Row count "+mermaid.Escape(a.RowCountNote))
	}
	if a.SchemaChanged {
		what = append(what, "Schema")
	}
	if a.FailedChecks > 0 {
		what = append(what, fmt.Sprintf("%d failed check(s)", a.FailedChecks))
	}
	if len(what) > 0 {
		parts = append(parts, "<small>"+strings.Join(what, " · ")+"</small>")
	}
	return strings.Join(parts, "<br/>")
}

// DeltaPct is delta in percent of base as impact_analysis reports it:
// Recce's one decimal, unless that reads 0 for a non-zero delta; then two
// significant digits (+3 on 19,995 is 0.015, not 0). Nil when base is 0.
func DeltaPct(delta, base int64) *float64 {
	if base == 0 {
		return nil
	}
	x := float64(delta) / float64(base) * 100
	p := math.Round(x*10) / 10
	if p == 0 && delta != 0 {
		p, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 2, 64), 64)
	}
	return &p
}

// FormatPct writes a percentage as DeltaPct rounded it: one decimal at
// most ("3.5", "50"), more only where one decimal would read 0 ("0.015").
// Every renderer (CLI text, summary, diagram) uses it; the web UI's
// fmtDeltaPct mirrors it.
func FormatPct(v float64) string {
	r := math.Round(v*10) / 10
	if r == 0 && v != 0 {
		return strconv.FormatFloat(v, 'g', 2, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
