package impact_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/lineage"
)

var generatedAt = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?`)

// normalise replaces the artifacts' timestamps, which change on every build.
func normalise(md string) string { return generatedAt.ReplaceAllString(md, "<TIMESTAMP>") }

func ptr[T any](v T) *T { return &v }

// summaryResult is a triage of shapesScenario as impact.Analyze would report
// it, with a table missing in the current warehouse (customer_countries)
// and a failed step.
func summaryResult() *impact.Result {
	return &impact.Result{
		ClassificationSource:       "lineage_dag",
		ModifiedCount:              3,
		DownstreamCount:            1,
		Counts:                     impact.Counts{Impacted: 4, Modified: 1, Added: 1, Removed: 1, Downstream: 1, NotImpacted: 1},
		ConfirmedNotImpactedModels: []string{"stg_events"},
		ConfirmedImpactedModels: []*impact.Model{
			{Name: "brand_new", UniqueID: "model." + pid + ".brand_new", ChangeStatus: ptr("added"),
				RowCount:      &impact.RowCount{Current: ptr[int64](1), BaseStatus: "not_in_manifest", CurrentStatus: "ok"},
				SchemaChanges: []impact.SchemaChange{{Column: "y", ChangeStatus: "added", CurrentType: "INTEGER"}},
				DataImpact:    impact.Confirmed, ValueDiffSkipped: "no_primary_key"},
			{Name: "customers", UniqueID: "model." + pid + ".customers", ChangeStatus: ptr("modified"),
				RowCount:      &impact.RowCount{Base: ptr[int64](2), Current: ptr[int64](3), Delta: ptr[int64](1), DeltaPct: ptr(50.0), BaseStatus: "ok", CurrentStatus: "ok"},
				SchemaChanges: []impact.SchemaChange{{Column: "a", ChangeStatus: "added"}, {Column: "b", ChangeStatus: "removed"}, {Column: "c", ChangeStatus: "type_changed"}, {Column: "d", ChangeStatus: "added"}, {Column: "e", ChangeStatus: "added"}, {Column: "f", ChangeStatus: "added"}, {Column: "g", ChangeStatus: "added"}},
				DataImpact:    impact.Confirmed, AffectedRowCount: ptr[int64](1)},
			{Name: "legacy", UniqueID: "model." + pid + ".legacy", ChangeStatus: ptr("removed"),
				RowCount:      &impact.RowCount{Base: ptr[int64](1), BaseStatus: "ok", CurrentStatus: "not_in_manifest"},
				SchemaChanges: []impact.SchemaChange{},
				DataImpact:    impact.Confirmed},
			{Name: "customer_countries", UniqueID: "model." + pid + ".customer_countries",
				RowCount:   &impact.RowCount{Base: ptr[int64](4), BaseStatus: "ok", CurrentStatus: "table_not_found"},
				DataImpact: impact.Potential},
		},
		Errors: []impact.StepError{{Step: "row_count", Model: "customer_countries", Message: "table \"current\".\"customer_countries\" not found\nLINE 1: select count(*)"}},
	}
}

func summaryChecks() []impact.SummaryCheck {
	return []impact.SummaryCheck{
		{Name: "Schema diff", Type: "schema_diff", Status: "finished", Mismatched: ptr(false), Approved: true},
		{Name: "Never run", Type: "value_diff", Status: "never run"},
		{Name: "Row count diff", Type: "row_count_diff", Status: "finished", Mismatched: ptr(true), Outdated: true},
		{Name: "Broken", Type: "value_diff", Status: "failed"},
	}
}

func TestMarkdownGolden(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	md := impact.Markdown(impact.SummaryInput{Comparison: cmp, Impact: summaryResult(), Checks: summaryChecks()})
	assertGolden(t, "summary.md", normalise(md))
}

// TestMarkdownCells pins the parts of the summary that must never mislead:
// an unmeasurable count says why and is never a 0.
func TestMarkdownCells(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	md := impact.Markdown(impact.SummaryInput{Comparison: cmp, Impact: summaryResult(), Checks: summaryChecks()})
	for _, want := range []string{
		"| manifest generated at | ",
		"| dbt version | 1.8.1 | 1.8.1 |\n",
		"| adapter | duckdb | duckdb |\n",
		"4 impacted (1 modified, 1 added, 1 removed, 1 downstream), 1 not impacted (classification: lineage_dag).\n",
		"| model | change | rows (base → current) | schema | data impact | affected rows |\n",
		"| brand_new | added | N/A (not_in_manifest) → 1 | added `y` | confirmed | N/A (no_primary_key) |\n",
		"| customers | modified | 2 → 3 (▲ 50%) | added `a`, removed `b`, type_changed `c`, added `d`, added `e`, +2 more | confirmed | 1 |\n",
		"| legacy | removed | 1 → N/A (not_in_manifest) | unchanged | confirmed | N/A |\n",
		"| customer_countries | downstream | 4 → N/A (table_not_found) | N/A (not compared) | potential | N/A |\n",
		"- row_count customer_countries: table \"current\".\"customer_countries\" not found …\n",
		// Failed first, then mismatches, then the rest in their order.
		"| check | type | result | approved |\n|---|---|---|---|\n" +
			"| Broken | value_diff | ❌ failed |  |\n" +
			"| Row count diff | row_count_diff | ⚠️ mismatch (outdated) |  |\n" +
			"| Schema diff | schema_diff | ✅ match | ✓ |\n" +
			"| Never run | value_diff | never run |  |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q\n%s", want, md)
		}
	}
	// The graph notes: the modified model's delta and why the downstream count is missing.
	if !strings.Contains(md, `["customers<br/><small>Code · Row count ▲ 50% · Schema</small>"]`) {
		t.Errorf("customers graph note:\n%s", md)
	}
	if !strings.Contains(md, `["customer_countries<br/><small>Row count N/A (table_not_found)</small>"]`) {
		t.Errorf("customer_countries graph note:\n%s", md)
	}
	// A model absent from one manifest is expected to have no count: no note.
	if strings.Contains(md, "Row count N/A (not_in_manifest)") {
		t.Errorf("an added/removed model must not get a row count note:\n%s", md)
	}
	for _, bad := range []string{"→ 0 ", " 0 →", "| 0 |"} {
		if strings.Contains(md, bad) {
			t.Errorf("summary shows a 0 (%q) for a value that was not measured:\n%s", bad, md)
		}
	}
	if strings.Count(md, "```mermaid\n") != 1 || strings.Count(md, "\n```\n") != 1 {
		t.Errorf("one mermaid block expected:\n%s", md)
	}
}

func TestMarkdownEmpty(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	md := impact.Markdown(impact.SummaryInput{Comparison: cmp, Impact: &impact.Result{ClassificationSource: "lineage_dag"}})
	for _, want := range []string{"## Lineage\n\nNo impacted models.\n", "0 impacted (0 modified, 0 added, 0 removed, 0 downstream), 0 not impacted (classification: lineage_dag).\n", "## Checks\n\nNo checks yet.\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q\n%s", want, md)
		}
	}
	if strings.Contains(md, "mermaid") || strings.Contains(md, "step(s) failed") || strings.Contains(md, "could not be checked") {
		t.Errorf("empty summary:\n%s", md)
	}
	// No triage at all (nil Impact): lineage and checks only.
	md = impact.Markdown(impact.SummaryInput{Comparison: cmp})
	if strings.Contains(md, "## Impact") || !strings.Contains(md, "No impacted models.") {
		t.Errorf("summary without triage:\n%s", md)
	}
}

func TestMarkdownSingleEnv(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	p := *cmp.Project
	p.Base, p.SingleEnv = p.Current, true
	md := impact.Markdown(impact.SummaryInput{Comparison: lineage.Compare(&p), Impact: &impact.Result{}})
	if !strings.Contains(md, "> ⚠️ "+dbt.SingleEnvWarning+"\n") {
		t.Errorf("single-env summary must warn:\n%s", md)
	}
}

// TestMarkdownTruncatesLargeGraphs: a huge impacted set keeps the comment
// under GitHub's 65,536-character limit and says how much is missing.
func TestMarkdownTruncatesLargeGraphs(t *testing.T) {
	cmp := bigComparison(t)
	r := &impact.Result{}
	for _, id := range cmp.Graph.IDs() {
		if n, _ := cmp.Graph.Node(id); n.ResourceType == dbt.Model {
			r.ConfirmedImpactedModels = append(r.ConfirmedImpactedModels, &impact.Model{Name: n.Name, UniqueID: id, DataImpact: impact.Potential})
		}
	}
	md := impact.Markdown(impact.SummaryInput{Comparison: cmp, Impact: r})
	m := regexp.MustCompile(`(?s)` + "```mermaid\n(.*?)```\n\n_The graph was truncated: (\\d+) node\\(s\\) not shown._\n").FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("no truncation note after the graph:\n%s", tail(md, 2000))
	}
	if len(m[1]) > impact.MaxMermaidChars-2000 {
		t.Errorf("graph is %d characters, cap %d", len(m[1]), impact.MaxMermaidChars-2000)
	}
	if m[2] == "0" {
		t.Errorf("the summary says the graph was truncated with 0 nodes not shown: it must say what is missing (edges: %d drawn of %d)",
			strings.Count(m[1], " --> "), edgesAmong(t, cmp, m[1]))
	}
	shown := strings.Count(m[1], "\n  class ")
	if omitted := m[2]; omitted != strconv.Itoa(len(r.ConfirmedImpactedModels)-shown) {
		t.Errorf("note says %s omitted, %d of %d are shown", omitted, shown, len(r.ConfirmedImpactedModels))
	}
}

// TestMarkdownEscapesTableCells: a check name is free text; a "|" in it
// must not add a column to the checks table.
func TestMarkdownEscapesTableCells(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	md := impact.Markdown(impact.SummaryInput{Comparison: cmp, Impact: &impact.Result{},
		Checks: []impact.SummaryCheck{{Name: "orders | revenue", Type: "query_diff", Status: "never run"}}})
	if !strings.Contains(md, `| orders \| revenue | query_diff | never run |  |`+"\n") {
		t.Errorf("a | in a check name must be escaped:\n%s", md)
	}
}

// A result-wide warning (base and current being one table) opens the
// comment, before any number it qualifies; the single-env warning is not
// repeated.
func TestMarkdownWarningFirst(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	r := summaryResult()
	r.Errors = nil // failed steps open the comment before warnings (TestMarkdown's golden)
	r.Warning = dbt.SingleEnvWarning + " Base and current are the same table for 1 model(s) (customers): comparing them cannot show a change."
	md := impact.Markdown(impact.SummaryInput{Comparison: cmp, Impact: r})
	want := "# Ripple summary\n\n> ⚠️ **Base and current are the same table for 1 model(s) (customers): comparing them cannot show a change.**\n\n| | base | current |"
	if !strings.HasPrefix(md, want) {
		t.Errorf("summary starts\n%s\nwant\n%s", md[:min(len(md), len(want)+40)], want)
	}
	if strings.Contains(md, "**"+dbt.SingleEnvWarning) {
		t.Error("single-env warning repeated in bold")
	}
}

// TestMarkdownWarehouseWarnings: the connection's warnings (a superuser, a
// role that can write) are said before the numbers, one line each.
func TestMarkdownWarehouseWarnings(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	r := summaryResult()
	r.Errors = nil
	md := impact.Markdown(impact.SummaryInput{Comparison: cmp, Impact: r,
		WarehouseWarnings: []string{"connected as a superuser (ripple_admin):\nuse a read-only role"}})
	want := "# Ripple summary\n\n> ⚠️ connected as a superuser (ripple_admin): use a read-only role\n\n| | base | current |"
	if !strings.HasPrefix(md, want) {
		t.Errorf("summary starts\n%s\nwant\n%s", md[:min(len(md), len(want)+40)], want)
	}
}

// TestMarkdownEscapesNames is issue #27 item 10: check and model names
// reach the PR comment as text: no image, link, emphasis or HTML comment
// (which would hide every row after it).
func TestMarkdownEscapesNames(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	r := &impact.Result{ClassificationSource: "lineage_dag",
		ConfirmedImpactedModels: []*impact.Model{{UniqueID: "model.x.evil", Name: "![m](https://evil.example/m.png)", DataImpact: impact.Potential}}}
	md := impact.Markdown(impact.SummaryInput{Comparison: cmp, Impact: r, Checks: []impact.SummaryCheck{
		{Name: "![x](https://evil.example/x.png) <!--", Type: "schema_diff", Status: "never run"},
		{Name: "*bold* [link](https://evil.example) `code` <b>&amp;</b> ~~s~~", Type: "row_count_diff", Status: "never run"},
	}})
	for _, want := range []string{
		`| \!\[m\](https://evil.example/m.png) |`,
		`| \!\[x\](https://evil.example/x.png) &lt;\!-- | schema_diff |`,
		`| \*bold\* \[link\](https://evil.example) \` + "`" + `code\` + "`" + ` &lt;b&gt;&amp;amp;&lt;/b&gt; \~\~s\~\~ | row_count_diff |`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "<!--") || strings.Contains(md, "![") {
		t.Errorf("summary holds live Markdown or HTML from a name:\n%s", md)
	}
}
