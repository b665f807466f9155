package render

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/static"
)

func staticRenderers() map[string]Func {
	return map[string]Func{
		"erd": typed(func(w io.Writer, out *static.ERDResult, o Options) error {
			_, err := io.WriteString(w, static.RenderMermaid(out))
			return err
		}),
		"project_summary":    typed(projectSummary),
		"search":             typed(search),
		"test_gaps":          typed(testGaps),
		"state_policies":     typed(statePolicies),
		"find_data":          typed(findData),
		"describe_entity":    typed(describeEntity),
		"plan_query":         typed(planQuery),
		"compare_observed":   typed(compareObserved),
		"openlineage_export": typed(openLineage),
	}
}

// capped prints "… N more" for a list cut by the renderer (shown of have)
// or by the operation (total of have, raise --limit).
func capped(w io.Writer, shown, have, total int, what string) {
	if have > shown {
		fmt.Fprintf(w, "… %s more %s (--json shows them)\n", Int(int64(have-shown)), what)
	}
	if total > have {
		fmt.Fprintf(w, "%s of %s %s listed (raise --limit for more)\n", Int(int64(have)), Int(int64(total)), what)
	}
}

func projectSummary(w io.Writer, out *static.SummaryResult, o Options) error {
	fmt.Fprintf(w, "%s: dbt %s, %s adapter, manifest v%d\n", out.ProjectName, out.DbtVersion, out.AdapterType, out.ManifestSchema)
	types := make([]string, 0, len(out.Counts))
	for k := range out.Counts {
		types = append(types, k)
	}
	sort.Strings(types)
	var parts []string
	for _, k := range types {
		parts = append(parts, fmt.Sprintf("%s %s", Int(int64(out.Counts[k])), k))
	}
	line := strings.Join(parts, ", ")
	if out.PythonModels > 0 {
		line += fmt.Sprintf(" (%s Python models)", Int(int64(out.PythonModels)))
	}
	if out.Disabled > 0 {
		line += fmt.Sprintf("; %s disabled", Int(int64(out.Disabled)))
	}
	fmt.Fprintf(w, "nodes: %s\n", dash(line))
	l := out.Lineage
	if l.Available {
		fmt.Fprintf(w, "column lineage: %s of %s models (%s), %s opaque\n", Int(int64(l.Analyzed)), Int(int64(l.Models)),
			strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", l.Percent), "0"), ".")+"%", Int(int64(l.Opaque)))
	} else {
		fmt.Fprintln(w, "column lineage: not available")
	}
	state := "no freshness or build_after configs"
	if out.UsesState {
		state = fmt.Sprintf("freshness/build_after configured on %s nodes (see state-policies)", Int(int64(out.StatePolicyModels)))
	}
	fmt.Fprintf(w, "state: %s\n", state)
	names := make([]string, 0, len(out.Artifacts))
	for k := range out.Artifacts {
		names = append(names, k)
	}
	sort.Strings(names)
	t := Table{Header: []string{"artifact", "present", "generated at", "path"}}
	for _, n := range names {
		a := out.Artifacts[n]
		present := "no"
		if a.Present {
			present = "yes"
		}
		t.Add(n, present, dash(a.GeneratedAt), a.Path)
	}
	return t.Write(w, o.width())
}

func search(w io.Writer, out *static.SearchResult, o Options) error {
	if len(out.Hits) == 0 {
		fmt.Fprintln(w, "no match (every term must appear in the name; find-data also reads descriptions)")
		return nil
	}
	t := Table{Header: []string{"kind", "name", "column", "type", "unique id"}}
	shown := min(len(out.Hits), o.limit())
	for _, h := range out.Hits[:shown] {
		t.Add(h.Kind, h.Name, dash(h.Column), dash(h.Type), h.UniqueID)
	}
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	capped(w, shown, len(out.Hits), out.Total, "matches")
	return nil
}

func testGaps(w io.Writer, out *static.TestGapsResult, o Options) error {
	if len(out.Gaps) == 0 {
		fmt.Fprintln(w, "no test gaps found")
	} else {
		fmt.Fprintf(w, "%s test%s worth adding (the YAML to paste: --json)\n", Int(int64(out.Total)), pluralS(out.Total))
		t := Table{Header: []string{"model", "column", "test", "rule", "reason"}}
		shown := min(len(out.Gaps), o.limit())
		for _, g := range out.Gaps[:shown] {
			t.Add(g.Model, g.Column, g.Test, g.Rule, g.Reason)
		}
		if err := t.Write(w, o.width()); err != nil {
			return err
		}
		capped(w, shown, len(out.Gaps), out.Total, "suggestions")
	}
	if out.Note != "" {
		para(w, "", out.Note, o.width())
	}
	return nil
}

func rule(r *static.FreshnessRule) string {
	if r == nil {
		return "—"
	}
	if r.Count == nil {
		return dash(r.Period)
	}
	return fmt.Sprintf("%d %s", *r.Count, r.Period)
}

func statePolicies(w io.Writer, out *static.StatePoliciesResult, o Options) error {
	if len(out.Policies) == 0 {
		if out.Note != "" {
			para(w, "", out.Note, o.width())
		} else {
			fmt.Fprintln(w, "no freshness or build_after configs")
		}
		return nil
	}
	t := Table{Header: []string{"node", "type", "build after", "updates on", "warn after", "error after", "filter"}}
	shown := min(len(out.Policies), o.limit())
	for _, p := range out.Policies[:shown] {
		t.Add(p.Name, p.ResourceType, rule(p.BuildAfter), dash(p.UpdatesOn), rule(p.WarnAfter), rule(p.ErrorAfter), dash(p.Filter))
	}
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	capped(w, shown, len(out.Policies), len(out.Policies), "nodes")
	if out.Note != "" {
		para(w, "", out.Note, o.width())
	}
	return nil
}

func findData(w io.Writer, out *static.FindDataResult, o Options) error {
	if len(out.Tables) == 0 {
		fmt.Fprintln(w, "nothing found")
	}
	shown := min(len(out.Tables), o.limit())
	for i, t := range out.Tables[:shown] {
		fmt.Fprintf(w, "%d. %s (%s) — %s\n", i+1, t.Name, t.ResourceType, t.Grain)
		if t.Description != "" {
			para(w, "   ", t.Description, o.width())
		}
		for _, c := range t.Columns {
			line := "   · " + c.Name
			if c.Type != "" {
				line += " " + c.Type
			}
			if c.Description != "" {
				line += " — " + c.Description
			}
			fmt.Fprintln(w, clipLine(line, o.width()))
		}
	}
	capped(w, shown, len(out.Tables), out.Total, "tables")
	if out.Hint != "" {
		para(w, "", out.Hint, o.width())
	}
	return nil
}

// clipLine cuts a line to width runes, marking the cut.
func clipLine(s string, width int) string {
	r := []rune(s)
	if width > 1 && len(r) > width {
		return string(r[:width-1]) + "…"
	}
	return s
}

func keyText(k static.Key) string {
	s := strings.Join(k.Columns, ", ") + " (" + k.Basis
	if k.NotNull {
		s += ", not null"
	}
	s += ")"
	if k.Note != "" {
		s += " — " + k.Note
	}
	return s
}

func describeEntity(w io.Writer, out *static.DescribeEntityResult, o Options) error {
	head := out.Name + " (" + out.ResourceType
	if out.Materialized != "" {
		head += ", " + out.Materialized
	}
	head += ")"
	if out.Relation != "" {
		head += " " + out.Relation
	}
	fmt.Fprintln(w, head)
	if out.Description != "" {
		para(w, "", out.Description, o.width())
	}
	fmt.Fprintf(w, "grain: %s\n", out.Grain)
	if out.PrimaryKey != nil {
		fmt.Fprintf(w, "primary key: %s\n", keyText(*out.PrimaryKey))
	}
	for _, k := range out.UniqueKeys {
		fmt.Fprintf(w, "unique key: %s\n", keyText(k))
	}
	t := Table{Header: []string{"column", "type", "key", "not null", "unique", "references", "tests", "description"}}
	flag := func(b bool) string {
		if b {
			return "yes"
		}
		return ""
	}
	shown := min(len(out.Columns), o.limit())
	for _, c := range out.Columns[:shown] {
		key := ""
		if c.PrimaryKey {
			key = "PK"
		} else if len(c.References) > 0 {
			key = "FK"
		}
		t.Add(c.Name, dash(c.Type), key, flag(c.NotNull), flag(c.Unique), strings.Join(c.References, ", "), strings.Join(c.Tests, ", "), c.Description)
	}
	fmt.Fprintln(w)
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	capped(w, shown, len(out.Columns), len(out.Columns), "columns")
	joins := func(title string, js []static.JoinInfo) error {
		if len(js) == 0 {
			return nil
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		jt := Table{Header: []string{"entity", "cardinality", "basis", "on"}}
		for _, j := range js {
			jt.Add(j.Entity, j.Cardinality, j.Basis, j.On)
		}
		return jt.Write(w, o.width())
	}
	if err := joins("joins to", out.References); err != nil {
		return err
	}
	if err := joins("joined from", out.ReferencedBy); err != nil {
		return err
	}
	for _, n := range out.Notes {
		para(w, "note: ", n, o.width())
	}
	if out.StarterQuery != "" {
		fmt.Fprintf(w, "\nstarter query:\n%s\n", indentLines(strings.TrimRight(out.StarterQuery, "\n"), 1))
	}
	return nil
}

func planQuery(w io.Writer, out *static.PlanQueryResult, o Options) error {
	fmt.Fprintf(w, "grain: %s — %s\n", out.Base, out.Grain)
	t := Table{Header: []string{"table", "alias", "role", "grain"}}
	for _, p := range out.Tables {
		t.Add(p.Name, p.Alias, p.Role, p.Grain)
	}
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	if len(out.Joins) > 0 {
		fmt.Fprintln(w, "\njoins:")
		jt := Table{Header: []string{"from", "to", "cardinality", "basis", "repeats rows", "on"}}
		for _, j := range out.Joins {
			rep := "no"
			if j.RepeatsRows {
				rep = "YES"
			}
			jt.Add(j.From, j.To, j.Cardinality, j.Basis, rep, j.On)
		}
		if err := jt.Write(w, o.width()); err != nil {
			return err
		}
	}
	for _, warn := range out.Warnings {
		para(w, "warning: ", warn, o.width())
	}
	fmt.Fprintf(w, "\nSQL:\n%s\n", indentLines(strings.TrimRight(out.SQL, "\n"), 1))
	if out.Next != "" {
		fmt.Fprintln(w)
		para(w, "next: ", out.Next, o.width())
	}
	return nil
}

func ratio(f float64) string {
	return share(f)
}

func compareObserved(w io.Writer, out *static.CompareObservedResult, o Options) error {
	fmt.Fprintf(w, "%s observed rows, %s edges compared: precision %s, recall %s (%s static, %s observed, %s in both)\n",
		Int(int64(out.ObservedRows)), Int(int64(out.Compared)), ratio(out.Precision), ratio(out.Recall),
		Int(int64(out.Static)), Int(int64(out.Observed)), Int(int64(out.Both)))
	if out.Unresolved > 0 {
		fmt.Fprintf(w, "%s edges name tables outside the project: %s\n", Int(int64(out.Unresolved)), strings.Join(out.UnresolvedTables, ", "))
	}
	t := Table{Header: []string{"model", "static", "observed", "both", "precision", "recall", "missed", "extra"}}
	shown := min(len(out.Models), o.limit())
	for _, m := range out.Models[:shown] {
		t.Add(m.Model, Int(int64(m.Static)), Int(int64(m.Observed)), Int(int64(m.Both)), ratio(m.Precision), ratio(m.Recall),
			Int(int64(len(m.Missed))), Int(int64(len(m.Extra))))
	}
	if len(out.Models) > 0 {
		if err := t.Write(w, o.width()); err != nil {
			return err
		}
	}
	capped(w, shown, len(out.Models), len(out.Models), "models")
	for _, m := range out.Models[:shown] {
		for _, e := range m.Missed {
			fmt.Fprintf(w, "%s: missed %s\n", m.Model, e)
		}
		for _, e := range m.Extra {
			fmt.Fprintf(w, "%s: extra %s\n", m.Model, e)
		}
		if m.Note != "" {
			para(w, m.Model+": ", m.Note, o.width())
		}
	}
	if out.Note != "" {
		para(w, "", out.Note, o.width())
	}
	return nil
}

func openLineage(w io.Writer, out *static.OpenLineageResult, o Options) error {
	fmt.Fprintf(w, "%s OpenLineage event%s (the events themselves: --json)\n", Int(int64(len(out.Events))), pluralS(len(out.Events)))
	t := Table{Header: []string{"job", "output dataset", "columns", "input datasets"}}
	shown := min(len(out.Events), o.limit())
	for _, e := range out.Events[:shown] {
		outName, cols := "—", 0
		for _, d := range e.Outputs {
			outName = d.Name
			if f, ok := d.Facets["columnLineage"]; ok {
				cols += len(f.Fields)
			}
		}
		t.Add(e.Job.Name, outName, Int(int64(cols)), Int(int64(len(e.Inputs))))
	}
	if len(out.Events) > 0 {
		if err := t.Write(w, o.width()); err != nil {
			return err
		}
	}
	capped(w, shown, len(out.Events), len(out.Events), "events")
	for _, n := range out.TableOnly {
		fmt.Fprintf(w, "table-level only: %s (%s)\n", n.Node, n.Reason)
	}
	return nil
}
