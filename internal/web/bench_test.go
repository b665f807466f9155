package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/synth"
	"github.com/ripple-data/ripple/internal/web"
)

var (
	synthOnce    sync.Once
	synthDir     string
	synthChanged string
	synthErr     error
)

// synth2000 writes a 2,000-model project (about 2,100 nodes with sources)
// once per test binary (TestMain removes it).
func synth2000(tb testing.TB) (dir, changed string) {
	tb.Helper()
	synthOnce.Do(func() {
		if synthDir, synthErr = os.MkdirTemp("", "ripple-web-synth-"); synthErr != nil {
			return
		}
		p := synth.Generate(synth.Options{Models: 2000, Seed: 1})
		synthChanged = p.ChangedIDs[0]
		synthErr = p.Write(synthDir)
	})
	if synthErr != nil {
		tb.Fatal(synthErr)
	}
	return synthDir, synthChanged
}

func synthServer(b *testing.B) (*testServer, string) {
	dir, changed := synth2000(b)
	return serveSession(b, ops.NewSession(ops.Config{Paths: dbt.Paths{ProjectDir: dir}, StatePath: b.TempDir() + "/state.json"}), web.Options{}), changed
}

// BenchmarkFirstRender2000 is the time from navigation to the lineage
// graph's first nodes in the DOM on a 2,000-model project, measured inside
// Chromium (performance.now() counts from navigation start): HTML, scripts,
// /api/info, the lineage JSON, the layout and the render of the visible part.
// "changed" is the default view (1,046 changed and impacted nodes here);
// "all" is the click on "All nodes" (2,100) until they are drawn.
// Reported: first-render-ms and layout-ms (median over the iterations).
//
//	go test -run '^$' -bench FirstRender2000 -benchtime 5x ./internal/web
func BenchmarkFirstRender2000(b *testing.B) {
	ts, _ := synthServer(b)
	br := newBrowser(b)
	measure := func(after func()) (render, layout float64) {
		after()
		render = eval[float64](br, "first render", `performance.getEntriesByName('ripple:graph-painted').at(-1).startTime`)
		layout = eval[float64](br, "layout time", `Math.max(0, ...performance.getEntriesByType('measure').filter(m => m.name.startsWith('ripple:layout:')).map(m => m.duration))`)
		return
	}
	b.Run("changed", func(b *testing.B) {
		var renders, layouts []float64
		for b.Loop() {
			r, l := measure(func() {
				br.do("navigate", chromedp.Navigate(ts.URL+"/?"+time.Now().String()), visible(`g.node`))
			})
			renders, layouts = append(renders, r), append(layouts, l)
		}
		b.ReportMetric(median(renders), "first-render-ms")
		b.ReportMetric(median(layouts), "layout-ms")
		b.ReportMetric(float64(eval[int](br, "count", `document.querySelectorAll('g.node').length`)), "nodes-drawn")
		b.Log(eval[string](br, "timings", `JSON.stringify([performance.getEntriesByType('navigation')[0].responseEnd, ...performance.getEntriesByType('resource').map(r => [r.name.replace(location.origin, ''), Math.round(r.startTime), Math.round(r.responseEnd), r.transferSize])])`))
	})
	b.Run("all", func(b *testing.B) {
		var renders, layouts []float64
		for b.Loop() {
			br.do("navigate", chromedp.Navigate(ts.URL+"/?"+time.Now().String()), visible(`g.node`))
			t0 := eval[float64](br, "mark", `(performance.clearMeasures(), performance.clearMarks(), performance.now())`)
			r, l := measure(func() {
				br.do("all nodes", clickText("All nodes"))
				_, err := chromedp.Run(br.ctx, chromedp.Poll[bool](`/\/2100 drawn/.test(document.querySelector('.graph-controls .engine').textContent)`))
				br.check("wait for all nodes", err)
			})
			renders, layouts = append(renders, r-t0), append(layouts, l)
		}
		b.ReportMetric(median(renders), "first-render-ms")
		b.ReportMetric(median(layouts), "layout-ms")
	})
}

// BenchmarkAPILatency2000 is the latency of the calls each screen makes,
// through HTTP, on the 2,000-model project (artifact-only operations; the
// warehouse ones are measured on the demo by BenchmarkAPILatencyDemo).
//
//	go test -run '^$' -bench APILatency -benchtime 20x ./internal/web
func BenchmarkAPILatency2000(b *testing.B) {
	ts, changed := synthServer(b)
	var col string
	{
		_, cll := ts.call(b, "get_cll", map[string]any{"node_id": changed})
		for id, c := range cll["columns"].(map[string]any) {
			if strings.HasPrefix(id, changed+"_") {
				col = c.(map[string]any)["name"].(string)
				break
			}
		}
	}
	screens := []struct {
		name  string
		calls [][2]any // path, body
	}{
		{"lineage/changed", [][2]any{{"/api/ui/lineage", map[string]any{}}, {"/api/ops/schema_diff", map[string]any{}}}},
		{"lineage/all", [][2]any{{"/api/ui/lineage", map[string]any{"view_mode": "all"}}}},
		{"model-panel", [][2]any{{"/api/ops/get_model", map[string]any{"model_id": changed}}, {"/api/ops/get_node", map[string]any{"node_id": changed}}, {"/api/ops/schema_diff", map[string]any{"node_ids": []string{changed}}}}},
		{"column-lineage", [][2]any{{"/api/ops/get_cll", map[string]any{"node_id": changed, "column": col, "change_analysis": true}}, {"/api/ops/column_impact", map[string]any{"node_id": changed, "columns": []string{col}}}}},
		{"info", [][2]any{{"/api/info", nil}}},
	}
	benchScreens(b, ts, screens)
}

// BenchmarkAPILatencyDemo: the warehouse-backed screens on the demo (DuckDB).
func BenchmarkAPILatencyDemo(b *testing.B) {
	ts := startServer(b, demoGlobals(b, true), web.Options{})
	benchScreens(b, ts, []struct {
		name  string
		calls [][2]any
	}{
		{"impact", [][2]any{{"/api/ops/impact_analysis", map[string]any{}}}},
		{"value-diff", [][2]any{{"/api/ops/value_diff", map[string]any{"model": "customers", "primary_key": []string{"customer_id"}}}}},
		{"query", [][2]any{{"/api/ops/query", map[string]any{"sql": "select * from {{ ref('orders') }} limit 100"}}}},
		{"checklist", [][2]any{{"/api/ops/list_checks", map[string]any{}}}},
	})
}

func benchScreens(b *testing.B, ts *testServer, screens []struct {
	name  string
	calls [][2]any
}) {
	for _, s := range screens {
		b.Run(s.name, func(b *testing.B) {
			// The first call of a screen pays for caches (column lineage,
			// memoized results); it is reported apart from the warm calls.
			start := time.Now()
			for _, c := range s.calls {
				fetch(b, ts, c[0].(string), c[1])
			}
			first := time.Since(start)
			var bytesOut int
			for b.Loop() {
				bytesOut = 0
				for _, c := range s.calls {
					bytesOut += fetch(b, ts, c[0].(string), c[1])
				}
			}
			b.ReportMetric(float64(bytesOut)/1024, "KB/screen")
			b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
		})
	}
}

func fetch(b *testing.B, ts *testServer, path string, body any) int {
	var res *http.Response
	var err error
	if body == nil {
		res, err = ts.Client().Get(ts.URL + path)
	} else {
		raw, _ := json.Marshal(body)
		res, err = ts.Client().Post(ts.URL+path, "application/json", bytes.NewReader(raw))
	}
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	n, _ := buf.ReadFrom(res.Body)
	if res.StatusCode != 200 {
		b.Fatalf("%s: %d %.300s", path, res.StatusCode, buf.String())
	}
	return int(n)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
