package render

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/ops"
)

func cllRenderers() map[string]Func {
	return map[string]Func{
		"get_cll":       typed(getCLL),
		"analyze_model": typed(analyzeModel),
		"column_impact": typed(columnImpact),
	}
}

// getCLL lists every column of the graph with how it is computed and from
// what, node by node (changed nodes marked).
func getCLL(w io.Writer, out *ops.CLLResult, o Options) error {
	ids := make([]string, 0, len(out.Nodes))
	ncols := 0
	for id, n := range out.Nodes {
		ids = append(ids, id)
		ncols += len(n.Columns)
	}
	sort.Strings(ids)
	fmt.Fprintf(w, "%s, %s", plural(len(ids), "node", "nodes"), plural(ncols, "column", "columns"))
	if out.Truncated {
		fmt.Fprint(w, " (cut at 5,000 columns; focus on one node or column)")
	}
	fmt.Fprintln(w)
	t := Table{Header: []string{"node", "change", "column", "transformation", "depends on"}}
	anyChange := false
	for _, n := range out.Nodes {
		anyChange = anyChange || n.ChangeStatus != "" || n.ChangeCategory != ""
	}
	rows := 0
	limit := o.limit()
	for _, id := range ids {
		n := out.Nodes[id]
		change := n.ChangeStatus
		if n.ChangeCategory != "" {
			change += " (" + strings.ReplaceAll(n.ChangeCategory, "_", "-") + ")"
		}
		if n.Opaque {
			if rows < limit {
				t.Add(n.Name, dash(change), "?", "opaque", dash(n.OpaqueReason))
			}
			rows++
			continue
		}
		names := make([]string, 0, len(n.Columns))
		for c := range n.Columns {
			names = append(names, c)
		}
		sort.Strings(names)
		for _, cn := range names {
			c := n.Columns[cn]
			if rows < limit {
				tr := c.TransformationType
				if c.IsAggregate {
					tr += " (aggregate)"
				}
				col := c.Name
				if c.ChangeStatus != "" {
					col += " [" + c.ChangeStatus + "]"
				}
				deps := make([]string, 0, len(c.DependsOn))
				for _, d := range c.DependsOn {
					deps = append(deps, shortNode(d.Node)+"."+d.Column)
				}
				t.Add(n.Name, dash(change), col, tr, list(deps, 3))
			}
			rows++
		}
	}
	if !anyChange { // a focus without the change: drop the empty column
		t.Header = append(t.Header[:1], t.Header[2:]...)
		for i, r := range t.Rows {
			t.Rows[i] = append(r[:1], r[2:]...)
		}
	}
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	More(w, min(rows, limit), rows)
	return nil
}

func analyzeModel(w io.Writer, out *ops.AnalyzeModelResult, o Options) error {
	fmt.Fprintln(w, out.ModelID)
	if out.Opaque {
		Warn(w, "opaque: "+dash(out.Reason)+"; its column lineage is unknown")
	}
	s := out.Structure
	if s != nil {
		if s.Unparseable {
			Warn(w, "the SQL did not parse: "+s.ParseError)
		}
		line := func(label string, items []string) {
			if len(items) > 0 {
				fmt.Fprintf(w, "%-13s %s\n", label+":", strings.Join(items, "\n              "))
			}
		}
		if len(s.Refs) > 0 {
			fmt.Fprintf(w, "%-13s %s\n", "reads:", strings.Join(s.Refs, ", "))
		}
		if len(s.CTENames) > 0 {
			fmt.Fprintf(w, "%-13s %s\n", "ctes:", strings.Join(s.CTENames, ", "))
		}
		line("filters", s.Filters)
		var joins []string
		for _, j := range s.Joins {
			joins = append(joins, j.JoinType+" "+j.Table+" on "+j.Condition)
		}
		line("joins", joins)
		line("group by", s.GroupBy)
		line("having", s.Having)
		line("qualify", s.Qualify)
		line("order by", s.OrderBy)
		line("case", s.CaseExpressions)
		var flags []string
		for _, f := range []struct {
			on   bool
			name string
		}{{s.Distinct, "distinct"}, {s.HasCTE, "CTEs"}, {s.HasSubquery, "subquery"}, {s.IsSetOperation, "set operation"}} {
			if f.on {
				flags = append(flags, f.name)
			}
		}
		if s.WindowFunctions > 0 {
			flags = append(flags, fmt.Sprintf("%d window functions", s.WindowFunctions))
		}
		if len(flags) > 0 {
			fmt.Fprintf(w, "%-13s %s\n", "shape:", strings.Join(flags, ", "))
		}
		if len(s.Projections) > 0 {
			fmt.Fprintln(w)
			t := Table{Header: []string{"column", "kind", "from"}}
			shown := min(len(s.Projections), o.limit())
			for _, p := range s.Projections[:shown] {
				kind := "passthrough"
				switch {
				case p.IsAggregate:
					kind = "aggregate"
				case p.IsDerived:
					kind = "derived"
				}
				from := make([]string, 0, len(p.SourceColumns))
				for _, c := range p.SourceColumns {
					from = append(from, shortNode(c))
				}
				t.Add(p.Name, kind, list(from, 3))
			}
			if err := t.Write(w, o.width()); err != nil {
				return err
			}
			More(w, shown, len(s.Projections))
		}
	}
	fmt.Fprintln(w)
	down := make([]string, 0, len(out.Downstream.Models))
	for _, m := range out.Downstream.Models {
		down = append(down, shortNode(m))
	}
	fmt.Fprintf(w, "downstream:   %s\n", list(down, 8))
	if n := len(out.Downstream.Columns); n > 0 {
		cols := make([]string, 0, n)
		for _, c := range out.Downstream.Columns {
			cols = append(cols, shortNode(c.Node)+"."+c.Column)
		}
		fmt.Fprintf(w, "their columns reading it: %s\n", list(cols, 6))
	}
	return nil
}

func columnImpact(w io.Writer, out *ops.ColumnImpactResult, o Options) error {
	changed := make([]string, 0, len(out.Changed))
	for _, c := range out.Changed {
		changed = append(changed, shortNode(c.Node)+"."+c.Column)
	}
	fmt.Fprintf(w, "Changed: %s\n", list(changed, 6))
	fmt.Fprintf(w, "Reaches %s in %s; %s read none of them\n",
		plural(len(out.Columns), "column", "columns"), plural(len(out.Models), "model", "models"), plural(len(out.NotReached), "reader", "readers"))
	if len(out.Columns) > 0 {
		fmt.Fprintln(w)
		t := Table{Header: []string{"column", "reason", "depth", "via"}}
		if len(out.Changed) > 1 {
			t.Header = append(t.Header, "from")
		}
		shown := min(len(out.Columns), o.limit())
		for _, c := range out.Columns[:shown] {
			row := []string{shortNode(c.Node) + "." + c.Column, c.Reason, fmt.Sprint(c.Depth), shortNode(c.Via.Node) + "." + c.Via.Column}
			if len(out.Changed) > 1 {
				row = append(row, shortNode(c.Root.Node)+"."+c.Root.Column)
			}
			t.Add(row...)
		}
		if err := t.Write(w, o.width()); err != nil {
			return err
		}
		More(w, shown, len(out.Columns))
	}
	for _, m := range out.Models {
		if m.Opaque {
			Warn(w, shortNode(m.Node)+" is opaque: always reached")
		}
	}
	if len(out.NotReached) > 0 {
		fmt.Fprintln(w, "\nNot reached (read the model, but none of the changed columns):")
		t := Table{}
		for _, m := range out.NotReached {
			t.Add("  "+shortNode(m.Node), "reads "+list(m.Reads, 4))
		}
		if err := t.Write(w, o.width()); err != nil {
			return err
		}
	}
	return nil
}
