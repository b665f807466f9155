// Package apphost_test tests the MCP App ui://ripple/review the way a host
// runs it: Chromium loads testdata/host.html (built from web/src/app-host by
// `bash scripts/web.sh --update`), which connects to the MCP server over
// streamable HTTP with the TypeScript client, reads the resource that
// impact_analysis links, embeds it in a sandboxed iframe and bridges it with
// the extension's AppBridge. The server is Ripple's MCP server (the handler
// `ripple mcp --http` serves) on the demo project.
package apphost_test

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/chromiumtest"
	"github.com/ripple-data/ripple/internal/cli"
	"github.com/ripple-data/ripple/internal/demo"
	"github.com/ripple-data/ripple/internal/mcpserver"
	"github.com/ripple-data/ripple/internal/ops"
)

//go:embed testdata/host.html
var hostHTML string

// server serves the MCP server at /mcp, the host page at / and the bare
// app at /review.html, all on one loopback origin.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	d, err := demo.Build(ctx, filepath.Join(t.TempDir(), "demo"))
	if err != nil {
		t.Fatal(err)
	}
	g := &cli.Globals{
		ProjectDir: d.Paths.ProjectDir, TargetPath: d.Paths.TargetPath, TargetBasePath: d.Paths.TargetBasePath,
		StateFile: filepath.Join(t.TempDir(), "ripple_state.json"), DuckDB: d.DBPath,
	}
	sess := g.NewSession(cli.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	t.Cleanup(func() { _ = sess.Close() })
	srv, err := mcpserver.New(ctx, mcpserver.Options{Registry: ops.Default(), Session: sess, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(mcpserver.HTTPOptions{}))
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, body)
		}
	}
	mux.Handle("/{$}", page(hostHTML))
	mux.Handle("/review.html", page(reviewHTML(t, srv)))
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// reviewHTML is the app as resources/read returns it.
func reviewHTML(t *testing.T, srv *mcpserver.Server) string {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.URIReviewApp})
	if err != nil {
		t.Fatal(err)
	}
	return res.Contents[0].Text
}

type browser struct {
	ctx      context.Context
	t        *testing.T
	mu       sync.Mutex
	problems []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	ctx := chromiumtest.Start(t, 900, 1500)
	b := &browser{ctx: ctx, t: t}
	b.watch(ctx, "host")
	return b
}

// watch fails the test on JavaScript exceptions and console errors.
func (b *browser) watch(ctx context.Context, who string) {
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.mu.Lock()
				b.problems = append(b.problems, who+": "+m.String())
				b.mu.Unlock()
			}
		}
	}()
}

func (b *browser) check(step string, err error) {
	b.t.Helper()
	if err != nil {
		b.t.Fatalf("%s: %v", step, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.problems) > 0 {
		b.t.Fatalf("%s: the page reported errors:\n%s", step, strings.Join(b.problems, "\n"))
	}
}

// waitHost waits for the host page's status and fails on its error.
func (b *browser) waitHost(status string) {
	b.t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](
		fmt.Sprintf(`window.rippleHost && (window.rippleHost.status === %q || window.rippleHost.status === "error")`, status),
		chromedp.WithPollingTimeout(60*time.Second)))
	b.check("waiting for the host to reach "+status, err)
	if msg := evalIn[string](b, b.ctx, "host error", `window.rippleHost.error || ""`); msg != "" {
		b.t.Fatalf("the host failed: %s", msg)
	}
}

// appFrame attaches to the app's iframe: Chrome runs a sandboxed iframe in
// its own process, as a target of type iframe.
func (b *browser) appFrame() context.Context {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		infos, err := chromedp.Targets(b.ctx)
		b.check("listing targets", err)
		for _, info := range infos {
			if info.Type == "iframe" {
				fctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(info.TargetID))
				b.t.Cleanup(cancel)
				b.check("attaching to the app", chromedp.Do(fctx))
				b.watch(fctx, "app")
				return fctx
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.t.Fatal("the app's iframe never appeared as a target")
	return nil
}

func evalIn[T any](b *browser, ctx context.Context, step, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	b.check(step, err)
	return v
}

// textOf waits for an element in ctx and returns its trimmed text.
func (b *browser) textOf(ctx context.Context, css string) string {
	b.t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`!!document.querySelector(%q)`, css), chromedp.WithPollingTimeout(30*time.Second)))
	b.check("waiting for "+css, err)
	return strings.TrimSpace(evalIn[string](b, ctx, "reading "+css, fmt.Sprintf(`document.querySelector(%q).textContent`, css)))
}

func (b *browser) screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv("RIPPLE_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "artifacts", "screenshots")
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	b.check("screenshot "+name, err)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// TestReviewAppInAHost: the host hands the app the demo's impact_analysis
// result; the app shows its numbers and verdicts; a click on a model calls
// get_model through the bridge and shows the model; the lineage tab calls
// the app-only ui_lineage and draws the graph.
func TestReviewAppInAHost(t *testing.T) {
	ts := server(t)
	b := newBrowser(t)
	_, err := chromedp.Run(b.ctx, chromedp.Navigate(ts.URL+"/?tool=impact_analysis"))
	b.check("opening the host", err)
	b.waitHost("result sent")
	app := b.appFrame()

	// The demo's impact analysis (the numbers `ripple demo` prints): 5
	// changed + 1 downstream + 4 not impacted (one ruled out by column
	// lineage) = the demo's 10 models.
	for css, want := range map[string]string{
		`.rv-stat[data-stat=modified] b`:          "5",
		`.rv-stat[data-stat=downstream] b`:        "1",
		`.rv-stat[data-stat=not-impacted] b`:      "4",
		`.rv-stat[data-stat=max-affected-rows] b`: "4,773",
	} {
		if got := b.textOf(app, css); got != want {
			t.Errorf("%s = %q, want %q", css, got, want)
		}
	}
	verdicts := evalIn[map[string]string](b, app, "verdicts", `Object.fromEntries([...document.querySelectorAll('li.rv-model')].map(li => [li.dataset.model, li.querySelector('.rv-verdict').textContent]))`)
	wantVerdicts := map[string]string{
		"customer_orders_legacy": "confirmed", "customer_segments": "confirmed", "customers": "confirmed",
		"daily_orders": "none", "stg_payments": "confirmed", "orders": "confirmed",
	}
	if fmt.Sprint(verdicts) != fmt.Sprint(wantVerdicts) {
		t.Errorf("verdicts = %v, want %v", verdicts, wantVerdicts)
	}
	for model, want := range map[string]string{"customers": "rows 2,000 → 2,000 (0%)", "customer_orders_legacy": "rows 1,798 → —", "customer_segments": "rows — → 2,000"} {
		if got := b.textOf(app, `li.rv-model[data-model=`+model+`] .rv-rows`); got != want {
			t.Errorf("%s: %q, want %q", model, got, want)
		}
	}
	if got := b.textOf(app, `li.rv-model[data-model=stg_payments] .rv-reasons`); !strings.Contains(got, "changed columns: amount") || !strings.Contains(got, "4,773 affected rows") {
		t.Errorf("stg_payments reasons = %q, want the changed column amount and 4,773 affected rows", got)
	}
	b.screenshot("app-impact-400px")

	// A click: get_model through the bridge, then the model's detail.
	_, err = chromedp.Run(app, chromedp.Click(chromedp.CSS(`li.rv-model[data-model=customers] button`)))
	b.check("opening customers", err)
	cols := b.textOf(app, `table[aria-label=Columns] tbody`)
	for _, c := range []string{"customer_id", "full_name", "customer_lifetime_value"} {
		if !strings.Contains(cols, c) {
			t.Errorf("the customers columns %q lack %s", cols, c)
		}
	}
	if sql := b.textOf(app, `pre[aria-label=SQL]`); !strings.Contains(strings.ToLower(sql), "select") {
		t.Errorf("the customers SQL is %q", sql)
	}
	if calls := evalIn[[]string](b, b.ctx, "calls", `window.rippleHost.calls`); strings.Join(calls, ",") != "get_model" {
		t.Errorf("the app called %v through the bridge, want [get_model]", calls)
	}

	// Changed rows: value_diff_detail through the bridge, on the model's key.
	_, err = chromedp.Run(app, chromedp.Click(chromedp.CSS(`.rv-detail button:not([aria-label])`)))
	b.check("asking for the changed rows", err)
	// 50 rows (the app's limit) of the 3,308 base/current rows of the 1,654 changed customers.
	if got := b.textOf(app, `[aria-label="value_diff_detail result"] p.muted`); got != "50 rows" {
		t.Errorf("value_diff_detail showed %q, want 50 rows", got)
	}

	// The lineage tab: the app-only ui_lineage, drawn as a graph.
	_, err = chromedp.Run(app, chromedp.Click(chromedp.CSS(`.rv-tabs button:nth-child(2)`)))
	b.check("opening the lineage", err)
	if got, want := b.textOf(app, `[data-testid=lineage-counts]`), "5 changed, 6 impacted, 10 of 10 nodes shown"; got != want {
		t.Errorf("lineage counts = %q, want %q", got, want)
	}
	if got := b.textOf(app, `.rv-graph svg`); !strings.Contains(got, "customers") || !strings.Contains(got, "stg_payments") {
		t.Errorf("the graph shows %q", got)
	}
	if calls := evalIn[[]string](b, b.ctx, "calls", `window.rippleHost.calls`); strings.Join(calls, ",") != "get_model,value_diff_detail,ui_lineage" {
		t.Errorf("the app called %v through the bridge", calls)
	}
	b.screenshot("app-lineage-400px")
}

var darkMedia = emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}

// TestReviewAppDark: the host's dark theme (and the system's) darkens the app.
func TestReviewAppDark(t *testing.T) {
	ts := server(t)
	for _, tc := range []struct{ name, query string }{
		{"host theme", "?tool=impact_analysis&theme=dark"},
		{"system", "?tool=impact_analysis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrowser(t)
			if tc.name == "system" {
				_, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, darkMedia)
				b.check("dark system", err)
			}
			_, err := chromedp.Run(b.ctx, chromedp.Navigate(ts.URL+"/"+tc.query))
			b.check("opening the host", err)
			b.waitHost("result sent")
			app := b.appFrame()
			if tc.name == "system" {
				_, err := chromedp.Call(app, emulation.SetEmulatedMedia, darkMedia)
				b.check("dark system in the app", err)
			}
			b.textOf(app, `.rv-stat[data-stat=modified] b`)
			bg := evalIn[string](b, app, "background", `getComputedStyle(document.documentElement).backgroundColor + " " + getComputedStyle(document.documentElement).color`)
			if bg != "rgb(21, 24, 29) rgb(230, 232, 235)" {
				t.Errorf("background and text colour %s in dark mode, want rgb(21, 24, 29) rgb(230, 232, 235)", bg)
			}
		})
	}
}

const standaloneText = "This is Ripple's MCP App: an MCP host (Claude, ChatGPT, VS Code, Goose…) shows it beside the chat " +
	"when impact_analysis, lineage_diff or render_lineage_mermaid returns."

// TestReviewAppStandalone: the resource alone renders its text in Chromium
// (no host: it waits for one).
func TestReviewAppStandalone(t *testing.T) {
	ts := server(t)
	b := newBrowser(t)
	_, err := chromedp.Run(b.ctx, chromedp.Navigate(ts.URL+"/review.html"))
	b.check("opening the app", err)
	if got := b.textOf(b.ctx, "h1"); got != "Ripple review" {
		t.Errorf("h1 = %q", got)
	}
	if got := b.textOf(b.ctx, "main p"); got != standaloneText {
		t.Errorf("status = %q", got)
	}
}

// TestReviewAppShowsTheCodeChange: when get_model's answer carries
// code_change.summary (the host page adds one here), the model's detail
// shows it above the columns.
func TestReviewAppShowsTheCodeChange(t *testing.T) {
	ts := server(t)
	b := newBrowser(t)
	const summary = "adds full_name (first_name || ' ' || last_name)"
	_, err := chromedp.Run(b.ctx, chromedp.Navigate(ts.URL+"/?tool=impact_analysis&code_change="+url.QueryEscape(summary)))
	b.check("opening the host", err)
	b.waitHost("result sent")
	app := b.appFrame()
	b.textOf(app, `li.rv-model[data-model=customers] button`)
	_, err = chromedp.Run(app, chromedp.Click(chromedp.CSS(`li.rv-model[data-model=customers] button`)))
	b.check("opening customers", err)
	if got := b.textOf(app, `[data-testid=code-change]`); got != summary {
		t.Errorf("code change = %q, want %q", got, summary)
	}
}
