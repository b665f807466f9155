package impact_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/synth"

	"github.com/ripple-data/ripple/internal/golden"
)

// golden compares got with testdata/name, rewriting it with -update.
func assertGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name), []byte(got))
}

// shapesScenario has every resource type the renderer draws differently and
// every change status it styles.
func shapesScenario(p *dbtfixture.Project) {
	p.Source("raw", "events", dbtfixture.CSV("id,kind\n1,click\n2,view\n"))
	p.Seed("countries", dbtfixture.CSV("code,name\nFR,France\nDE,Germany\n"))
	p.Table("customers", []string{"id INTEGER", "name VARCHAR"},
		dbtfixture.Rows{{1, "Alice"}, {2, "Bob"}},
		dbtfixture.Rows{{1, "Alice"}, {2, "Bob"}, {3, "Carol"}})
	stg := "select id, kind from {{ source('raw', 'events') }}"
	p.Model("stg_events", dbtfixture.View, stg, stg)
	down := "select c.id, c.name, k.name as country from {{ ref('customers') }} c cross join {{ ref('countries') }} k"
	p.Model("customer_countries", dbtfixture.Table, down, down)
	snap := "select * from {{ ref('customers') }}"
	p.Model("customers_snapshot", dbtfixture.Snapshot, snap, snap).Config("unique_key", "id")
	p.Model("legacy", dbtfixture.Table, "select 1 as x", "")
	p.Model("brand_new", dbtfixture.Table, "", "select 2 as y")
	p.Exposure("sales_dashboard", "customer_countries")
}

func compareFixture(t *testing.T, scenario func(*dbtfixture.Project)) *lineage.Comparison {
	t.Helper()
	p := dbtfixture.New(t)
	scenario(p)
	b := p.MustBuild(context.Background())
	proj, err := b.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return lineage.Compare(proj)
}

const pid = "ripple_test"

func allIDs(cmp *lineage.Comparison) []string {
	return append([]string(nil), cmp.Graph.IDs()...)
}

// nodeLine finds the declaration line of the node whose label starts with name.
func nodeLine(t *testing.T, mermaid, name string) (alias, line string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^  (n\d+)(\S)(.*"` + regexp.QuoteMeta(name) + `(?:<br/>[^"]*)?".*)$`)
	m := re.FindStringSubmatch(mermaid)
	if m == nil {
		t.Fatalf("no node line for %s in\n%s", name, mermaid)
	}
	return m[1], m[0]
}

func TestMermaidShapesAndStyles(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	ids := []string{
		"source." + pid + ".raw.events",
		"seed." + pid + ".countries",
		"snapshot." + pid + ".customers_snapshot",
		"exposure." + pid + ".sales_dashboard",
		"model." + pid + ".customers",
		"model." + pid + ".customer_countries",
		"model." + pid + ".legacy",
		"model." + pid + ".brand_new",
		"model." + pid + ".stg_events",
	}
	for _, id := range ids {
		if _, ok := cmp.Graph.Node(id); !ok {
			t.Fatalf("fixture has no node %s (have %v)", id, cmp.Graph.IDs())
		}
	}
	res := impact.Mermaid(cmp, dagVerdicts(cmp), ids, nil, 0)
	mm := res.Mermaid
	if !strings.HasPrefix(mm, "graph LR\n") {
		t.Fatalf("diagram must start with graph LR:\n%s", mm)
	}
	if res.NodeCount != len(ids) || res.Truncated || res.OmittedNodes != 0 {
		t.Errorf("node_count=%d truncated=%v omitted=%d, want %d, false, 0", res.NodeCount, res.Truncated, res.OmittedNodes, len(ids))
	}

	shapes := []struct{ name, open, close string }{
		{"raw.events", `[("`, `")]`},
		{"countries", `[/"`, `"/]`},
		{"customers_snapshot", `[["`, `"]]`},
		{"sales_dashboard", `>"`, `"]`},
		{"stg_events", `["`, `"]`},
	}
	for _, s := range shapes {
		alias, line := nodeLine(t, mm, s.name)
		if !strings.HasPrefix(line, "  "+alias+s.open+s.name) || !strings.HasSuffix(line, s.close) {
			t.Errorf("%s: line %q, want shape %s…%s", s.name, line, s.open, s.close)
		}
	}

	classes := []struct{ name, class, note string }{
		{"customers", "modified", "<small>Code</small>"},
		{"legacy", "removed", "<small>Removed</small>"},
		{"brand_new", "added", "<small>Added</small>"},
		{"customer_countries", "impacted", ""},
		// Downstream of customers; its unrendered target_schema is the
		// same template on both sides, so it is not itself modified.
		{"customers_snapshot", "impacted", ""},
		{"sales_dashboard", "impacted", ""},
		{"stg_events", "unchanged", ""},
		{"raw.events", "unchanged", ""},
	}
	for _, c := range classes {
		alias, line := nodeLine(t, mm, c.name)
		if !strings.Contains(mm, "\n  class "+alias+" "+c.class+"\n") {
			t.Errorf("%s (%s) must have class %s:\n%s", c.name, alias, c.class, mm)
		}
		if c.note != "" && !strings.Contains(line, "<br/>"+c.note) {
			t.Errorf("%s: line %q lacks note %s", c.name, line, c.note)
		}
		if c.note == "" && strings.Contains(line, "<small>") {
			t.Errorf("%s: unchanged-state node must have no note: %q", c.name, line)
		}
	}
	for _, def := range []string{
		"  classDef added fill:#d4edda,stroke:#28a745,color:#000000\n",
		"  classDef removed fill:#f8d7da,stroke:#dc3545,color:#000000\n",
		"  classDef modified fill:#fff3cd,stroke:#ffc107,color:#000000\n",
		"  classDef impacted fill:#ffffff,stroke:#ffc107,color:#000000\n",
	} {
		if !strings.Contains(mm, def) {
			t.Errorf("missing %q", def)
		}
	}

	// Changed nodes come first, in unique-id order, so truncation keeps them.
	for i, name := range []string{"brand_new", "customers", "legacy"} {
		if alias, _ := nodeLine(t, mm, name); alias != "n"+strconv.Itoa(i) {
			t.Errorf("%s has alias %s, want n%d", name, alias, i)
		}
	}

	// Edges: customers → customer_countries, countries → customer_countries,
	// customer_countries → sales_dashboard, raw.events → stg_events,
	// customers → customers_snapshot. Nothing else among these nodes.
	edge := func(from, to string) string {
		a, _ := nodeLine(t, mm, from)
		b, _ := nodeLine(t, mm, to)
		return "  " + a + " --> " + b + "\n"
	}
	for _, e := range [][2]string{
		{"customers", "customer_countries"},
		{"countries", "customer_countries"},
		{"customer_countries", "sales_dashboard"},
		{"raw.events", "stg_events"},
		{"customers", "customers_snapshot"},
	} {
		if !strings.Contains(mm, edge(e[0], e[1])) {
			t.Errorf("missing edge %s --> %s", e[0], e[1])
		}
	}
	if res.EdgeCount != 5 || strings.Count(mm, " --> ") != 5 {
		t.Errorf("edge_count = %d (%d in text), want 5", res.EdgeCount, strings.Count(mm, " --> "))
	}
}

func TestMermaidAnnotations(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	up, down := 50.0, -12.34
	notes := map[string]impact.Annotation{
		"model." + pid + ".customers":          {RowCountDeltaPct: &up, SchemaChanged: true, FailedChecks: 2},
		"model." + pid + ".customer_countries": {RowCountDeltaPct: &down},
		"model." + pid + ".stg_events":         {RowCountNote: "N/A (table_not_found)"},
	}
	mm := impact.Mermaid(cmp, dagVerdicts(cmp), allIDs(cmp), notes, 0).Mermaid
	for name, want := range map[string]string{
		"customers":          "<small>Code · Row count ▲ 50% · Schema · 2 failed check(s)</small>",
		"customer_countries": "<small>Row count ▼ 12.3%</small>",
		"stg_events":         "<small>Row count N/A (table_not_found)</small>",
	} {
		if _, line := nodeLine(t, mm, name); !strings.Contains(line, want) {
			t.Errorf("%s: %q lacks %q", name, line, want)
		}
	}
}

// TestMermaidEscapesLabels: quotes and angle brackets in a name cannot
// break out of the quoted label.
func TestMermaidEscapesLabels(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	id := "model." + pid + ".stg_events"
	n, _ := cmp.Graph.Node(id)
	saved := n.Name
	n.Name = `a"b<c>`
	defer func() { n.Name = saved }()
	mm := impact.Mermaid(cmp, dagVerdicts(cmp), []string{id}, nil, 0).Mermaid
	if !strings.Contains(mm, `["a#quot;b#lt;c#gt;"]`) {
		t.Errorf("label not escaped:\n%s", mm)
	}
}

func TestMermaidIsDeterministic(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	ids := allIDs(cmp)
	a := impact.Mermaid(cmp, dagVerdicts(cmp), ids, nil, 0)
	// Reversed input order: the diagram must not depend on it.
	rev := make([]string, len(ids))
	for i, id := range ids {
		rev[len(ids)-1-i] = id
	}
	b := impact.Mermaid(cmp, dagVerdicts(cmp), rev, nil, 0)
	if a.Mermaid != b.Mermaid {
		t.Fatalf("two calls differ:\n%s\n---\n%s", a.Mermaid, b.Mermaid)
	}
	// A rebuilt fixture (new temp dir, new timestamps) draws the same bytes.
	c := impact.Mermaid(compareFixture(t, shapesScenario), dagVerdicts(compareFixture(t, shapesScenario)), ids, nil, 0)
	if a.Mermaid != c.Mermaid {
		t.Fatalf("a rebuild of the same project draws a different diagram:\n%s\n---\n%s", a.Mermaid, c.Mermaid)
	}
}

func TestMermaidGolden(t *testing.T) {
	cmp := compareFixture(t, shapesScenario)
	up := 50.0
	notes := map[string]impact.Annotation{"model." + pid + ".customers": {RowCountDeltaPct: &up}}
	res := impact.Mermaid(cmp, dagVerdicts(cmp), allIDs(cmp), notes, 0)
	assertGolden(t, "mermaid_small.mmd", res.Mermaid)
}

// synthComparison is a generated 1,000-model project, shared by the tests
// that need a graph too big to draw.
var synthComparison = sync.OnceValues(func() (*lineage.Comparison, error) {
	sp := synth.Generate(synth.Options{Models: 1000, Seed: 3, Changed: 0.05})
	dir, err := os.MkdirTemp("", "ripple-synth-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := sp.Write(dir); err != nil {
		return nil, err
	}
	p, err := dbt.LoadProject(context.Background(), dbt.Paths{ProjectDir: dir})
	if err != nil {
		return nil, err
	}
	return lineage.Compare(p), nil
})

func bigComparison(t *testing.T) *lineage.Comparison {
	t.Helper()
	cmp, err := synthComparison()
	if err != nil {
		t.Fatal(err)
	}
	return cmp
}

func TestMermaidSizeCap(t *testing.T) {
	cmp := bigComparison(t)
	ids := allIDs(cmp)
	for _, maxChars := range []int{0, 20000, 3000} { // 0: the default cap
		res := impact.Mermaid(cmp, dagVerdicts(cmp), ids, nil, maxChars)
		limit := maxChars
		if limit == 0 {
			limit = impact.MaxMermaidChars
		}
		if len(res.Mermaid) > limit {
			t.Errorf("max %d: diagram is %d characters", limit, len(res.Mermaid))
		}
		if !res.Truncated || res.NodeCount+res.OmittedNodes != len(ids) {
			t.Errorf("max %d: truncated=%v node_count=%d omitted=%d of %d", limit, res.Truncated, res.NodeCount, res.OmittedNodes, len(ids))
		}
		note := regexp.MustCompile(`(?m)^  %% truncated: .*\n\z`).FindString(res.Mermaid)
		if want := "  %% truncated: " + strconv.Itoa(res.NodeCount) + " of " + strconv.Itoa(len(ids)) + " nodes shown"; !strings.HasPrefix(note, want) {
			t.Errorf("max %d: truncation note %q, want it to start with %q", limit, note, want)
		}
		// The edges between the nodes shown are the point of a lineage
		// graph: all of them are drawn, or the note says how many are not.
		want := edgesAmong(t, cmp, res.Mermaid)
		if res.EdgeCount != want && !strings.Contains(note, "edge") {
			t.Errorf("max %d: %d of the %d edges between the %d nodes shown are drawn, and the note does not say so: %q",
				limit, res.EdgeCount, want, res.NodeCount, note)
		}
		if got := strings.Count(res.Mermaid, "\n  class "); got != res.NodeCount {
			t.Errorf("max %d: %d class lines for %d nodes", limit, got, res.NodeCount)
		}
		// Every changed node is kept before any merely impacted one.
		if res.NodeCount >= len(cmp.State) {
			kept := strings.Count(res.Mermaid, " modified\n") + strings.Count(res.Mermaid, " added\n") + strings.Count(res.Mermaid, " removed\n")
			if kept != len(cmp.State) {
				t.Errorf("max %d: %d changed nodes kept, want all %d", limit, kept, len(cmp.State))
			}
		}
		again := impact.Mermaid(cmp, dagVerdicts(cmp), ids, nil, maxChars)
		if again.Mermaid != res.Mermaid {
			t.Errorf("max %d: truncated diagram is not deterministic", limit)
		}
	}
	// Under the cap nothing is truncated and there is no note.
	small := impact.Mermaid(cmp, dagVerdicts(cmp), ids[:5], nil, 0)
	if small.Truncated || strings.Contains(small.Mermaid, "truncated") {
		t.Errorf("5 nodes must not be truncated: %+v", small)
	}
}

// edgesAmong counts the graph edges between the nodes a diagram declares.
func edgesAmong(t *testing.T, cmp *lineage.Comparison, mermaid string) int {
	t.Helper()
	byName := map[string]string{}
	for _, id := range cmp.Graph.IDs() {
		n, _ := cmp.Graph.Node(id)
		name := n.Name
		if n.ResourceType == dbt.Source {
			name = n.SourceName + "." + n.Name
		}
		if _, dup := byName[name]; dup {
			t.Fatalf("two nodes are named %s", name)
		}
		byName[name] = id
	}
	shown := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  n\d+\W+"([^"<]+)`).FindAllStringSubmatch(mermaid, -1) {
		id, ok := byName[m[1]]
		if !ok {
			t.Fatalf("unknown node %s", m[1])
		}
		shown[id] = true
	}
	n := 0
	for id := range shown {
		for _, p := range cmp.Graph.Parents(id) {
			if shown[p] {
				n++
			}
		}
	}
	return n
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// TestMermaidTruncationKeepsEdges: a truncated lineage graph shows fewer
// nodes, but the nodes it shows keep the edges between them; nodes drawn
// without their edges look unconnected, which misreads the lineage.
func TestMermaidTruncationKeepsEdges(t *testing.T) {
	cmp := bigComparison(t)
	ids := allIDs(cmp)
	for _, maxChars := range []int{0, 20000, 3000} {
		res := impact.Mermaid(cmp, dagVerdicts(cmp), ids, nil, maxChars)
		if want := edgesAmong(t, cmp, res.Mermaid); res.EdgeCount != want {
			t.Errorf("max %d: %d nodes shown with %d of the %d edges between them",
				maxChars, res.NodeCount, res.EdgeCount, want)
		}
	}
}

// dagVerdicts is the model-level impact model: every changed node and its
// descendants impacted, as lineage_diff's impacted column says.
func dagVerdicts(cmp *lineage.Comparison) *impact.Verdicts {
	ids := make([]string, 0, len(cmp.Impacted))
	for id := range cmp.Impacted {
		ids = append(ids, id)
	}
	return impact.Classify(context.Background(), cmp, ids, nil)
}
