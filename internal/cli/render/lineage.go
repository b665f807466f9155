package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/ops"
)

func lineageRenderers() map[string]Func {
	return map[string]Func{
		"lineage_diff": typed(lineageDiff),
		"select_nodes": typed(selectNodes),
		"lineage":      typed(lineageGraph),
		"get_node":     typed(getNode),
		"list_opaque":  typed(listOpaque),
	}
}

func lineageDiff(w io.Writer, out *lineage.DiffResult, o Options) error {
	Warn(w, out.Warning)
	fmt.Fprintf(w, "%s nodes: %s changed, %s impacted", Int(int64(out.ReturnedNodes)), Int(int64(out.ChangedCount)), Int(int64(out.ImpactedCount)))
	if out.Truncated {
		fmt.Fprintf(w, " (cut from %s nodes; narrow it with --select)", Int(int64(out.TotalNodes)))
	}
	fmt.Fprintln(w)
	if out.Nodes == nil || len(out.Nodes.Data) == 0 {
		return nil
	}
	col := func(k string) int { return out.Nodes.Index(k) }
	cell := func(row []any, k string) any {
		if i := col(k); i >= 0 && i < len(row) {
			return row[i]
		}
		return nil
	}
	t := Table{Header: []string{"", "change", "type", "materialized", "node", "modifications"}}
	rows := out.Nodes.Data
	shown := min(len(rows), o.limit())
	for _, row := range rows[:shown] {
		status := "unchanged"
		if st, ok := cell(row, "change_status").(string); ok && st != "" {
			status = st
		}
		var mods []string
		switch v := cell(row, "modifications").(type) {
		case []string:
			mods = v
		case []any:
			for _, m := range v {
				mods = append(mods, fmt.Sprint(m))
			}
		}
		mark := ""
		if impacted, _ := cell(row, "impacted").(bool); impacted {
			mark = "*"
		}
		mat, _ := cell(row, "materialized").(string)
		typ, _ := cell(row, "resource_type").(string)
		name, _ := cell(row, "name").(string)
		t.Add(mark, status, typ, dash(mat), name, list(mods, 3))
	}
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	More(w, shown, len(rows))
	fmt.Fprintln(w, "(* impacted: modified or downstream of a modification)")
	return nil
}

func selectNodes(w io.Writer, out *ops.SelectResult, o Options) error {
	if len(out.Nodes) == 0 {
		fmt.Fprintln(w, "no nodes selected")
		return nil
	}
	fmt.Fprintf(w, "%s nodes selected\n", Int(int64(len(out.Nodes))))
	shown := min(len(out.Nodes), o.limit())
	for _, id := range out.Nodes[:shown] {
		fmt.Fprintln(w, "  "+id)
	}
	More(w, shown, len(out.Nodes))
	return nil
}

func lineageGraph(w io.Writer, out *ops.LineageResult, o Options) error {
	if out.Mermaid != "" {
		_, err := io.WriteString(w, strings.TrimRight(out.Mermaid, "\n")+"\n")
		return err
	}
	fmt.Fprintf(w, "%s nodes, %s edges", Int(int64(len(out.Nodes))), Int(int64(len(out.Edges))))
	if out.Truncated {
		fmt.Fprint(w, " (cut at 300 nodes; lower --depth)")
	}
	fmt.Fprintln(w)
	t := Table{Header: []string{"from", "", "to"}}
	shown := min(len(out.Edges), o.limit())
	for _, e := range out.Edges[:shown] {
		t.Add(shortNode(e.From), "→", shortNode(e.To))
	}
	if len(out.Edges) > 0 {
		if err := t.Write(w, o.width()); err != nil {
			return err
		}
	}
	More(w, shown, len(out.Edges))
	// Nodes without an edge (a focus with no neighbours) would be lost.
	linked := map[string]bool{}
	for _, e := range out.Edges {
		linked[e.From], linked[e.To] = true, true
	}
	for _, n := range out.Nodes {
		if !linked[n] {
			fmt.Fprintf(w, "%s (no edges)\n", shortNode(n))
		}
	}
	return nil
}

func getNode(w io.Writer, out *ops.GetNodeResult, o Options) error {
	if out.Opaque {
		Warn(w, "opaque: its column lineage is unknown ("+dash(out.OpaqueReason)+"); treat every column as impacted")
	}
	fmt.Fprintf(w, "%s (%s", out.UniqueID, out.ResourceType)
	if out.Materialized != "" {
		fmt.Fprintf(w, ", %s", out.Materialized)
	}
	fmt.Fprintln(w, ")")
	if out.Relation != "" {
		fmt.Fprintf(w, "relation:  %s\n", out.Relation)
	}
	if out.Description != "" {
		fmt.Fprintf(w, "about:     %s\n", out.Description)
	}
	fmt.Fprintf(w, "parents:   %s\n", list(shortNodes(out.Parents), 8))
	fmt.Fprintf(w, "children:  %s\n", list(shortNodes(out.Children), 8))
	for _, d := range out.Diagnostics {
		fmt.Fprintf(w, "note: %s\n", d)
	}
	if len(out.Columns) > 0 {
		fmt.Fprintln(w)
		t := Table{Header: []string{"column", "type", "transformation", "confidence", "inputs"}}
		shown := min(len(out.Columns), o.limit())
		for _, c := range out.Columns[:shown] {
			in := make([]string, 0, len(c.Inputs))
			for _, r := range c.Inputs {
				in = append(in, shortNode(r.Node)+"."+r.Column)
			}
			t.Add(c.Name, dash(c.Type), dash(c.Transformation), dash(c.Confidence), list(in, 4))
		}
		if err := t.Write(w, o.width()); err != nil {
			return err
		}
		More(w, shown, len(out.Columns))
	}
	if len(out.RowInputs) > 0 {
		fmt.Fprintln(w, "\nrows shaped by:")
		t := Table{}
		for _, r := range out.RowInputs {
			t.Add("  "+r.Kind, shortNode(r.Column.Node)+"."+r.Column.Column)
		}
		if err := t.Write(w, o.width()); err != nil {
			return err
		}
	}
	return nil
}

func listOpaque(w io.Writer, out *ops.OpaqueResult, o Options) error {
	if out.Total == 0 {
		fmt.Fprintln(w, "No opaque models: the column lineage of every model is known.")
		return nil
	}
	fmt.Fprintf(w, "%s opaque models (%s of the analysed models); they are always treated as impacted\n", Int(int64(out.Total)), share(out.Share))
	t := Table{Header: []string{"model", "reason", "reads"}}
	shown := min(len(out.Models), o.limit())
	for _, m := range out.Models[:shown] {
		reads := make([]string, 0, len(m.Reads))
		for _, r := range m.Reads {
			reads = append(reads, shortNode(r))
		}
		t.Add(shortNode(m.Node), m.Reason, list(reads, 4))
	}
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	More(w, shown, len(out.Models))
	return nil
}

// shortNode drops the resource type and package of a unique id:
// model.jaffle_shop.orders → orders (sources keep source.table).
func shortNode(id string) string {
	parts := strings.Split(id, ".")
	if len(parts) >= 3 {
		switch parts[0] {
		case "model", "seed", "snapshot", "source", "analysis", "exposure", "metric", "semantic_model":
			return strings.Join(parts[2:], ".")
		case "test", "unit_test":
			return parts[0] + " " + parts[2]
		}
	}
	return id
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func shortNodes(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = shortNode(id)
	}
	return out
}
