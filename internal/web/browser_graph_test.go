package web_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/web"
)

var drawnRe = regexp.MustCompile(`(dagre|layered) · (\d+)/(\d+) drawn`)

// drawn reads the graph's "engine · drawn/total" line.
func drawn(b *browser) (engine string, shown, total int) {
	b.t.Helper()
	m := drawnRe.FindStringSubmatch(b.text("read the graph status", `.graph-controls .engine`))
	if m == nil {
		b.t.Fatal("no graph status line")
	}
	shown, _ = strconv.Atoi(m[2])
	total, _ = strconv.Atoi(m[3])
	return m[1], shown, total
}

// TestBrowserLargeGraph: on 2,000 models the graph uses the linear layout,
// draws only what is in view, and search brings a node that is not drawn
// into view with the keyboard focus on it.
func TestBrowserLargeGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium on a 2,000-model project")
	}
	dir, _ := synth2000(t)
	ts := serveSession(t, ops.NewSession(ops.Config{Paths: dbt.Paths{ProjectDir: dir}, StatePath: filepath.Join(t.TempDir(), "s.json")}), web.Options{})
	_, lin := ts.do(t, "POST", "/api/ui/lineage", "application/json", []byte(`{}`), nil)
	total := int(lin["returned_nodes"].(float64))
	b := newBrowser(t)
	b.do("open", chromedp.Navigate(ts.URL+"/"), visible(`g.node`))
	engine, shown, n := drawn(b)
	if engine != "layered" || n != total || shown == 0 || shown >= n/4 {
		t.Errorf("graph: %s, %d of %d drawn (API: %d nodes), want the linear layout drawing a small part", engine, shown, n, total)
	}
	if dom := eval[int](b, "count nodes in the DOM", `document.querySelectorAll('g.node').length`); dom != shown {
		t.Errorf("%d nodes in the DOM, the status line says %d", dom, shown)
	}
	// A node far from the view: the last one the API returned that is not drawn.
	var target, name string
	rows := lin["nodes"].(map[string]any)["data"].([]any)
	for i := len(rows) - 1; i >= 0 && target == ""; i-- {
		row := rows[i].([]any)
		if !eval[bool](b, "is it drawn", fmt.Sprintf(`!!document.querySelector('g.node[data-key=%q]')`, row[1])) {
			target, name = row[1].(string), row[2].(string)
		}
	}
	if target == "" {
		t.Fatal("every node is drawn")
	}
	b.do("search", chromedp.SendKeys(chromedp.CSS(`input[type="search"]`), name+kb.Enter))
	got, err := chromedp.Run(b.ctx, chromedp.Poll[string](`document.activeElement && document.activeElement.dataset && document.activeElement.dataset.key`))
	b.check("wait for the focus", err)
	if got != target {
		t.Errorf("search for %s focused %q", name, got)
	}
	b.screenshot("lineage-2000")
	b.do("all nodes", clickText("All nodes"))
	_, err = chromedp.Run(b.ctx, chromedp.Poll[bool](`/\/2100 drawn/.test(document.querySelector('.graph-controls .engine').textContent)`))
	b.check("wait for all 2,100 nodes", err)
}

// TestBrowserCollapsesChains: a run of unchanged models on one path is one
// "N models" node until clicked; search finds a model inside it.
func TestBrowserCollapsesChains(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	p := dbtfixture.New(t)
	p.Table("src", []string{"id INTEGER"}, dbtfixture.Rows{{1}}, dbtfixture.Rows{{1}, {2}})
	prev := "src"
	for i := 1; i <= 5; i++ {
		name := fmt.Sprintf("step_%d", i)
		sql := "select id from {{ ref('" + prev + "') }}"
		p.Model(name, dbtfixture.View, sql, sql)
		prev = name
	}
	built, err := p.Build(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ts := serveSession(t, ops.NewSession(ops.Config{Paths: built.Paths, StatePath: filepath.Join(t.TempDir(), "s.json")}), web.Options{})
	b := newBrowser(t)
	// src changed; step_1..step_5 are downstream. step_1…step_4 have one
	// parent and one child: one chain node. step_5 (no child) stays.
	b.do("open", chromedp.Navigate(ts.URL+"/"), visible(`g.node.chain`))
	label := eval[string](b, "read the chain", `document.querySelector('g.node.chain').getAttribute('aria-label')`)
	if label != "4 models, impacted" {
		t.Errorf("chain node = %q, want \"4 models, impacted\"", label)
	}
	keys := eval[[]string](b, "read nodes", `[...document.querySelectorAll('g.node')].map(g => g.dataset.key).sort()`)
	if fmt.Sprint(keys) != "[chain:model.ripple_test.step_1 model.ripple_test.src model.ripple_test.step_5]" {
		t.Errorf("nodes = %v", keys)
	}
	b.screenshot("chain-collapsed")
	b.do("search inside the chain", chromedp.SendKeys(chromedp.CSS(`input[type="search"]`), "step_3"+kb.Enter), visible(`g.node[data-key="model.ripple_test.step_3"]`))
	if n := eval[int](b, "count", `document.querySelectorAll('g.node').length`); n != 6 {
		t.Errorf("%d nodes after expanding the chain, want 6", n)
	}
}
