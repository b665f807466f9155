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
	}
}

func lineageDiff(w io.Writer, out *lineage.DiffResult, o Options) error {
	Warn(w, out.Warning)
	fmt.Fprintf(w, "%d nodes (%d changed, %d impacted)", out.ReturnedNodes, out.ChangedCount, out.ImpactedCount)
	if out.Truncated {
		fmt.Fprintf(w, " — truncated from %d", out.TotalNodes)
	}
	fmt.Fprintln(w)
	col := func(k string) int { return out.Nodes.Index(k) }
	for _, row := range out.Nodes.Data {
		status := "unchanged"
		if st, ok := row[col("change_status")].(string); ok {
			status = st
		}
		detail := ""
		if mods, _ := row[col("modifications")].([]string); len(mods) > 0 {
			detail = " (" + strings.Join(mods, ", ") + ")"
		}
		mark := " "
		if impacted, _ := row[col("impacted")].(bool); impacted {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %-10s %-14s %s%s\n", mark, status, row[col("resource_type")], row[col("id")], detail)
	}
	fmt.Fprintln(w, "(* = impacted)")
	return nil
}

func selectNodes(w io.Writer, out *ops.SelectResult, o Options) error {
	for _, id := range out.Nodes {
		fmt.Fprintln(w, id)
	}
	if len(out.Nodes) == 0 {
		fmt.Fprintln(w, "(no nodes selected)")
	}
	return nil
}
