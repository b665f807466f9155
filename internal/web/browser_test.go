package web_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ripple-data/ripple/internal/chromiumtest"
	"github.com/ripple-data/ripple/internal/web"
)

type browser struct {
	ctx      context.Context
	t        testing.TB
	mu       sync.Mutex
	problems []string
}

// newBrowser starts headless Chromium with the flags this closed network
// needs (no background networking, no component updates) and a fresh
// profile. JavaScript exceptions and console errors fail the test.
func newBrowser(t testing.TB) *browser {
	t.Helper()
	ctx := chromiumtest.Start(t, 1400, 900)
	b := &browser{ctx: ctx, t: t}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.mu.Lock()
				b.problems = append(b.problems, m.String())
				b.mu.Unlock()
			}
		}
	}()
	return b
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

func (b *browser) do(step string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	b.check(step, chromedp.Do(b.ctx, actions...))
}

// eval runs a JavaScript expression and decodes its value.
func eval[T any](b *browser, step, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	b.check(step, err)
	return v
}

func (b *browser) text(step, css string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(css)))
	b.check(step, err)
	return v
}

// screenshot writes the viewport as PNG into the screenshots directory
// (RIPPLE_SCREENSHOT_DIR, default artifacts/screenshots at the repository
// root; CI keeps it as an artifact, git ignores it).
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

// visible waits for a CSS selector to match a visible element.
func visible(css string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(css))
}

func click(css string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(css), chromedp.NodeVisible)
}

// clickText clicks the first button whose text contains s.
func clickText(s string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.Search(`//button[contains(., "`+s+`")]`), chromedp.NodeVisible)
}

// TestBrowserReview drives the UI on the demo project the way a reviewer
// would, with the demo's exact numbers.
func TestBrowserReview(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	ts := startServer(t, demoGlobals(t, true), web.Options{Version: "test"})
	b := newBrowser(t)

	// 1. The lineage screen shows the changed models with their statuses.
	b.do("open the lineage screen",
		chromedp.Navigate(ts.URL+"/"),
		visible(`g.node[data-key="model.jaffle_shop.customers"]`),
		// Impact badges arrive after impact_analysis.
		visible(`g.node[data-key="model.jaffle_shop.customers"][aria-label*="confirmed"]`),
	)
	type node struct{ Status, Label, Text string }
	nodes := eval[map[string]node](b, "read the graph", `Object.fromEntries([...document.querySelectorAll('g.node')].map(g =>
		[g.dataset.key, {Status: g.dataset.status, Label: g.getAttribute('aria-label'), Text: g.textContent}]))`)
	want := map[string]string{
		"model.jaffle_shop.customer_orders_legacy": "removed",
		"model.jaffle_shop.customer_segments":      "added",
		"model.jaffle_shop.customers":              "modified",
		"model.jaffle_shop.daily_orders":           "modified",
		"model.jaffle_shop.stg_payments":           "modified",
		"model.jaffle_shop.orders":                 "impacted",
		// Ruled out by column lineage, as impact_analysis says (issue #23).
		"model.jaffle_shop.payment_method_summary": "ruled_out",
		"model.jaffle_shop.stg_orders":             "unchanged",
	}
	for id, status := range want {
		n, ok := nodes[id]
		name := id[strings.LastIndex(id, ".")+1:]
		if !ok || n.Status != status || !strings.HasPrefix(n.Label, name+", "+status) || !strings.Contains(n.Text, name) || !strings.Contains(n.Text, status) {
			t.Errorf("node %s = %+v, want status %s shown as text and in aria-label", id, n, status)
		}
	}
	if c := nodes["model.jaffle_shop.customers"]; !strings.Contains(c.Label, "schema 1") || !strings.Contains(c.Label, "confirmed") {
		t.Errorf("customers badges = %q, want the schema change and data_impact confirmed", c.Label)
	}
	changed := eval[[]string](b, "read the changed list", `[...document.querySelectorAll('.changed-list li')].map(li => li.textContent)`)
	if !slices.Equal(changed, []string{"customer_orders_legacy removed", "customer_segments added", "customers modified", "daily_orders modified", "stg_payments modified"}) {
		t.Errorf("changed list = %q", changed)
	}
	b.screenshot("lineage")

	// Keyboard: the graph is one Tab stop; arrows walk it, Enter opens.
	if n := eval[int](b, "count tab stops", `document.querySelectorAll('g.node[tabindex="0"]').length`); n != 1 {
		t.Errorf("%d graph nodes are Tab stops, want 1 (roving tabindex)", n)
	}
	_ = eval[bool](b, "focus stg_payments", `(document.querySelector('g.node[data-key="model.jaffle_shop.stg_payments"]').focus(), true)`)
	b.do("ArrowRight", chromedp.KeyEvent(kb.ArrowRight))
	focused, err := chromedp.Run(b.ctx, chromedp.Poll[string](`document.activeElement.dataset.key !== 'model.jaffle_shop.stg_payments' && document.activeElement.dataset.key`,
		chromedp.WithPollingTimeout(10*time.Second)))
	b.check("wait for the focus to move", err)
	if !slices.Contains([]string{"model.jaffle_shop.customers", "model.jaffle_shop.orders", "model.jaffle_shop.payment_method_summary"}, focused) {
		t.Errorf("ArrowRight from stg_payments focused %q, want one of its children", focused)
	}
	b.do("open with Enter", chromedp.KeyEvent(kb.Enter), visible(`section.panel`))
	if hash := eval[string](b, "read the address", `location.hash`); hash != "#/model/"+focused {
		t.Errorf("Enter on %s opened %q", focused, hash)
	}

	// 2. Opening a model shows its schema diff and its code diff.
	b.do("open customers",
		click(`g.node[data-key="model.jaffle_shop.customers"]`),
		visible(`section.panel[aria-label="Model customers"] tr[data-column="full_name"]`),
	)
	cols := eval[map[string]string](b, "read the columns", `Object.fromEntries([...document.querySelectorAll('table.columns tbody tr')].map(r => [r.dataset.column, r.dataset.change + '|' + r.children[2].textContent]))`)
	if cols["full_name"] != "added|added" || cols["customer_id"] != "unchanged|—" || len(cols) != 8 {
		t.Errorf("columns of customers = %v, want full_name added and 7 unchanged", cols)
	}
	if key := b.text("read the key", `[data-testid="model-key"]`); !strings.Contains(key, "customer_id") || !strings.Contains(key, "unique_customers_customer_id") {
		t.Errorf("key = %q, want customer_id with its source", key)
	}
	b.screenshot("model-panel")
	b.do("open the code diff", clickText("Code diff"), visible(`table.diff tr.line-add`))
	added := eval[[]string](b, "read added lines", `[...document.querySelectorAll('table.diff tr.line-add td.code')].map(td => td.textContent.trim())`)
	removed := eval[[]string](b, "read removed lines", `[...document.querySelectorAll('table.diff tr.line-del td.code')].map(td => td.textContent.trim())`)
	if !slices.Equal(added, []string{"customers.first_name || ' ' || customers.last_name as full_name,"}) || len(removed) != 0 {
		t.Errorf("code diff: added %q removed %q, want the full_name line added", added, removed)
	}
	// Above the text diff, what the SQL parser says changed (issue #24).
	if cc := b.text("read the code change", `[data-testid="code-change"]`); !strings.Contains(cc, "What changed: column_added: full_name = (customers.first_name || ' ') || customers.last_name") {
		t.Errorf("code change = %q, want the added full_name column", cc)
	}
	changes := eval[[]string](b, "read the code change rows", `[...document.querySelectorAll('table.code-changes tbody tr')].map(r => [...r.children].map(td => td.textContent).join('|'))`)
	if len(changes) != 1 || !strings.HasPrefix(changes[0], "column added|full_name|final select|—|") {
		t.Errorf("code change rows = %q, want one: column added, full_name, final select, nothing before", changes)
	}
	b.screenshot("code-diff")

	// 3. A value diff from the panel shows the demo's exact numbers.
	b.do("open the data diffs", clickText("Data diffs"), visible(`button[data-diff="value_diff"]`))
	if key := eval[string](b, "read the key field", `document.querySelector('input[aria-label="Primary key"]').value`); key != "customer_id" {
		t.Errorf("the value diff key is pre-filled with %q, want customer_id", key)
	}
	b.do("run a value diff", click(`button[data-diff="value_diff"]`), visible(`[data-testid="value-diff-summary"]`))
	if s := b.text("read the summary", `[data-testid="value-diff-summary"]`); s != "2,000 rows compared on key customer_id: 0 added, 0 removed, 1,654 changed" {
		t.Errorf("value diff summary = %q", s)
	}
	vdHead := eval[[]string](b, "read the value diff header", `[...document.querySelectorAll('.diffview thead th')].map(th => th.textContent)`)
	if slices.ContainsFunc(vdHead, func(h string) bool { return strings.Contains(h, "_p") || strings.HasPrefix(h, "in_") }) || !slices.Contains(vdHead, "matched share") {
		t.Errorf("value diff headers = %q, want words (matched share), not field names", vdHead)
	}
	// The whole model's profile diff: one row per column, the added one marked.
	b.do("run a profile diff", click(`button[data-diff="profile_diff"]`), visible(`table.profile tr[data-column="full_name"]`))
	profRows := eval[[]string](b, "read the profile rows", `[...document.querySelectorAll('table.profile tbody tr')].map(r => r.dataset.column + (r.className ? ' ' + r.className : ''))`)
	if !slices.Equal(profRows, []string{"customer_id", "first_name", "last_name", "full_name row-added", "first_order", "most_recent_order", "number_of_orders", "customer_lifetime_value"}) {
		t.Errorf("profile rows = %q", profRows)
	}
	b.do("run the value diff again", click(`button[data-diff="value_diff"]`), visible(`[data-testid="value-diff-summary"]`))
	clv := eval[[]string](b, "read a column", `[...[...document.querySelectorAll('.diffview tbody tr')].find(r => r.children[0].textContent === 'customer_lifetime_value').children].map(td => td.textContent)`)
	if len(clv) < 5 || clv[1] != "346" || clv[2] != "17.3%" || clv[3] != "0" || clv[4] != "0" {
		t.Errorf("customer_lifetime_value row = %q, want 346 matched (17.3%%), 0 nulls either side", clv)
	}
	b.screenshot("value-diff")

	// 4. Adding runs the check, and its successful run approves it
	// (create_check's contract); withdrawing and giving the approval again
	// persists it in the state file.
	b.do("add the value diff to the checklist",
		clickText("Add to checklist"),
		chromedp.WaitVisible(chromedp.Search(`//button[contains(., "Added to checklist")]`)),
		chromedp.Navigate(ts.URL+"/#/checks"),
		visible(`li.check[data-approved="true"]`),
	)
	if last := b.text("read the last run", `li.check .last-run`); !strings.HasPrefix(last, "last run: finished ") {
		t.Errorf("last run = %q, want finished with a time", last)
	}
	if name, pill := b.text("read the check name", `li.check strong`), b.text("read the verdict", `li.check .pill`); name != "Value diff of customers" || pill != "differs" {
		t.Errorf("check = %q with verdict %q, want \"Value diff of customers\" that differs", name, pill)
	}
	b.do("withdraw and give the approval",
		click(`li.check input[type="checkbox"]`),
		visible(`li.check[data-approved="false"]`),
		click(`li.check input[type="checkbox"]`),
		visible(`li.check[data-approved="true"]`),
	)
	b.do("write a note",
		click(`li.check details.notes summary`),
		chromedp.SendKeys(chromedp.CSS(`li.check textarea`), "1654 changed: expected, lifetime value now includes refunds"),
		clickText("Save notes"),
		chromedp.WaitNotPresent(chromedp.Search(`//button[contains(., "Save notes")]`)),
		clickText("Preview summary"),
		visible(`.summary-preview .markdown table`),
	)
	if md := eval[string](b, "read the summary", `document.querySelector('textarea.markdown-source').value`); !strings.Contains(md, "Value diff of customers") || !strings.Contains(md, "```mermaid") {
		t.Errorf("PR summary does not list the check or the lineage:\n%.600s", md)
	}
	b.screenshot("checklist")
	var state struct {
		Checks []struct {
			Type        string          `json:"type"`
			Params      json.RawMessage `json:"params"`
			IsChecked   bool            `json:"is_checked"`
			Description string          `json:"description"`
		} `json:"checks"`
	}
	raw, err := os.ReadFile(ts.g.StateFile)
	if err != nil {
		t.Fatalf("the state file: %v", err)
	}
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	if len(state.Checks) != 1 || state.Checks[0].Type != "value_diff" || !state.Checks[0].IsChecked ||
		!strings.Contains(string(state.Checks[0].Params), `"customers"`) || !strings.Contains(string(state.Checks[0].Params), `"customer_id"`) {
		t.Errorf("state file checks = %+v, want one approved value_diff of customers on customer_id", state.Checks)
	}
	if len(state.Checks) == 1 && state.Checks[0].Description != "1654 changed: expected, lifetime value now includes refunds" {
		t.Errorf("the note in the state file = %q", state.Checks[0].Description)
	}

	// 5. The column lineage of a changed column lists its downstream columns.
	b.do("open the column lineage of customers.customer_lifetime_value",
		chromedp.Navigate(ts.URL+"/#/model/model.jaffle_shop.customers"),
		click(`tr[data-column="customer_lifetime_value"] a`),
		visible(`[data-testid="downstream"] .col-item`),
		visible(`.cll-graph g.node`),
	)
	down := eval[[]string](b, "read downstream", `[...document.querySelectorAll('[data-testid="downstream"] .col-item')].map(e => e.textContent)`)
	up := eval[[]string](b, "read upstream", `[...document.querySelectorAll('[data-testid="upstream"] .col-item')].map(e => e.textContent)`)
	if !slices.Equal(down, []string{"customer_segments.segment derivedadded"}) {
		t.Errorf("downstream of customers.customer_lifetime_value = %q, want customer_segments.segment (derived, added model)", down)
	}
	if !slices.Equal(up, []string{"stg_payments.amount derivedmodified", "raw_payments.amount source"}) {
		t.Errorf("upstream = %q", up)
	}
	b.screenshot("column-lineage")

	// The other screens, with the demo's data.
	b.do("impact triage", chromedp.Navigate(ts.URL+"/#/impact"), visible(`table.verdicts tr[data-model="customers"]`))
	verdicts := eval[map[string]string](b, "read verdicts", `Object.fromEntries([...document.querySelectorAll('table.verdicts tr[data-model]')].map(r => [r.dataset.model, r.dataset.impact + ' ' + r.children[5].textContent]))`)
	// Every impacted model of the demo gets a definitive verdict (#13).
	wantVerdicts := map[string]string{
		"customer_orders_legacy": "confirmed 1798", "customer_segments": "confirmed 2000", "customers": "confirmed 1654",
		"daily_orders": "none 0", "orders": "confirmed 4448", "stg_payments": "confirmed 4773",
	}
	if !maps.Equal(verdicts, wantVerdicts) {
		t.Errorf("verdicts = %v, want %v", verdicts, wantVerdicts)
	}
	b.do("run a next action in one click", click(`tr[data-model="customers"] button`), visible(`tr.action-result .diffview[data-type="profile_diff"]`))
	// The profile diff: one row per column (current's, then base-only ones),
	// every metric, base → current where it changed (#23).
	// (The next action profiles the changed column alone.)
	if profRows := eval[[]string](b, "read the profile rows", `[...document.querySelectorAll('table.profile tbody tr')].map(r => r.dataset.column)`); !slices.Equal(profRows, []string{"customer_lifetime_value"}) {
		t.Errorf("profile rows = %q", profRows)
	}
	profHead := eval[[]string](b, "read the profile header", `[...document.querySelectorAll('table.profile thead th')].map(th => th.textContent)`)
	if !slices.Equal(profHead, []string{"column", "type", "rows", "not null", "distinct values", "distinct share", "unique", "min", "max", "average", "median"}) {
		t.Errorf("profile header = %q", profHead)
	}
	clvProfile := eval[map[string]string](b, "read the changed metrics", `Object.fromEntries([...document.querySelectorAll('table.profile tr[data-column="customer_lifetime_value"] td[data-changed]')].map(td => [td.dataset.metric, td.textContent]))`)
	if want := map[string]string{"distinct_count": "420 → 1,719", "distinct_proportion": "21% → 85.95%", "max": "633.00 → 637.65", "avg": "202.326 → 203.679", "median": "191 → 191.77"}; !maps.Equal(clvProfile, want) {
		t.Errorf("changed metrics of customer_lifetime_value = %v, want %v", clvProfile, want)
	}
	if n := eval[int](b, "count changed cells of customer_id", `document.querySelectorAll('table.profile tr[data-column="customer_id"] td[data-changed]').length`); n != 0 {
		t.Errorf("customer_id shows %d changed metrics, want 0", n)
	}
	if n := eval[int](b, "count suggested checks", `document.querySelectorAll('.suggested li').length`); n != 5 {
		t.Errorf("%d suggested checks, want 5", n)
	}
	notImpacted := eval[[]string](b, "read the not-impacted models", `[...document.querySelectorAll('.not-impacted li')].map(li => li.textContent)`)
	if !slices.Equal(notImpacted, []string{"order_status_events", "payment_method_summary ruled out by column lineage: reads stg_payments.order_id, stg_payments.payment_method; checked against stg_payments.amount", "stg_customers", "stg_orders"}) {
		t.Errorf("not impacted = %q", notImpacted)
	}
	if s := b.text("read the impact summary", `.impact-screen p.summary`); s != "6 impacted (3 modified, 1 added, 1 removed, 1 downstream), 4 not impacted (1 ruled out by column lineage) · classified by column_lineage · at most 4,773 affected rows in one model" {
		t.Errorf("impact summary = %q", s)
	}
	b.screenshot("impact")

	b.do("query",
		chromedp.Navigate(ts.URL+"/#/query"),
		visible(`.editor`),
	)
	_ = eval[bool](b, "preset the SQL", `(sessionStorage.setItem('ripple.sql', "select count(*) as n from {{ ref('orders') }}"), true)`)
	b.do("run the query",
		chromedp.Reload(),
		visible(`.editor[data-ready="true"] .cm-content`),
		chromedp.Click(chromedp.Search(`//button[text()="Run"]`), chromedp.NodeVisible),
		visible(`.diffview[data-type="query"] td`),
	)
	if n := b.text("read the count", `.diffview[data-type="query"] tbody td`); n != "10,000" {
		t.Errorf("count(*) of orders = %q, want 10,000", n)
	}
	// Identifiers without thousands separators, amounts at their scale.
	_ = eval[bool](b, "preset ids and amounts", `(sessionStorage.setItem('ripple.sql', "select customer_id, customer_lifetime_value from {{ ref('customers') }} where customer_id in (1000, 1002) order by 1"), true)`)
	b.do("run the ids query",
		chromedp.Reload(),
		visible(`.editor[data-ready="true"] .cm-content`),
		chromedp.Click(chromedp.Search(`//button[text()="Run"]`), chromedp.NodeVisible),
		visible(`.diffview[data-type="query"] td`),
	)
	cells := eval[[]string](b, "read ids and amounts", `[...document.querySelectorAll('.diffview[data-type="query"] tbody td')].map(td => td.textContent)`)
	if !slices.Equal(cells, []string{"1000", "139.00", "1002", "312.80"}) {
		t.Errorf("ids and amounts = %q, want 1000 139.00 1002 312.80", cells)
	}
	b.screenshot("query")

	// A keyed query diff (sql_template, primary_keys): the five statuses' sums differ.
	_ = eval[bool](b, "preset the diff SQL", `(sessionStorage.setItem('ripple.sql', "select status, sum(amount) as amount from {{ ref('orders') }} group by 1"), true)`)
	b.do("run a query diff",
		chromedp.Reload(),
		visible(`.editor[data-ready="true"] .cm-content`),
		clickText("Diff base vs current"),
		chromedp.SendKeys(chromedp.CSS(`input[placeholder="optional, e.g. order_id"]`), "status"),
		chromedp.Click(chromedp.Search(`//button[text()="Run"]`), chromedp.NodeVisible),
		visible(`.diffview[data-type="query_diff"] .summary`),
	)
	if s := b.text("read the query diff", `.diffview[data-type="query_diff"] .summary`); s != "0 added, 0 removed, 5 changed" {
		t.Errorf("query diff summary = %q, want 0 added, 0 removed, 5 changed", s)
	}
	if n := eval[int](b, "count the differing rows", `document.querySelectorAll('.diffview[data-type="query_diff"] tbody tr').length`); n != 10 {
		t.Errorf("%d differing rows shown, want 10 (each changed status in base and in current)", n)
	}

	// Row counts, top-k and histogram of orders from the model panel.
	b.do("open orders", chromedp.Navigate(ts.URL+"/#/model/model.jaffle_shop.orders"), visible(`section.panel[aria-label="Model orders"]`))
	b.do("row counts of orders",
		clickText("Data diffs"),
		click(`button[data-diff="row_count_diff"]`),
		visible(`.diffview[data-type="row_count_diff"] tr[data-model="orders"]`),
	)
	rc := eval[[]string](b, "read the row counts", `[...document.querySelectorAll('.diffview tr[data-model="orders"] td')].map(td => td.textContent)`)
	if !slices.Equal(rc, []string{"orders", "10,000", "10,000", "0"}) {
		t.Errorf("row counts of orders = %q, want 10,000 in both and delta 0", rc)
	}
	bars := func(step string) map[string]string {
		return eval[map[string]string](b, step, `Object.fromEntries([...document.querySelectorAll('.diffview g.bar-row')].map(g => [g.dataset.label, g.querySelector('.bar-value').textContent]))`)
	}
	_ = eval[bool](b, "pick status for top-k", `(s => (s.value = 'status', s.dispatchEvent(new Event('change', {bubbles: true})), true))(document.querySelector('select[aria-label="Top-k column"]'))`)
	b.do("top-k of orders.status", click(`button[data-diff="top_k_diff"]`), visible(`.diffview[data-type="top_k_diff"] g.bar-row`))
	if got, want := bars("read the top-k bars"), map[string]string{"completed": "6,016", "shipped": "1,484", "placed": "1,198", "returned": "801", "return_pending": "501"}; !maps.Equal(got, want) {
		t.Errorf("top-k of orders.status = %v, want %v", got, want)
	}
	_ = eval[bool](b, "pick amount for the histogram", `(s => (s.value = 'amount', s.dispatchEvent(new Event('change', {bubbles: true})), true))(document.querySelector('select[aria-label="Histogram column"]'))`)
	b.do("histogram of orders.amount", click(`button[data-diff="histogram_diff"]`), visible(`.diffview[data-type="histogram_diff"] g.bar-row`))
	if h := bars("read the histogram bars"); len(h) != 20 || h["1-6.8895"] != "765 → 758" || h["6.8895-12.779"] != "884 → 874" {
		t.Errorf("histogram of orders.amount = %v, want 20 bins starting 1-6.8895 765 → 758, 6.8895-12.779 884 → 874", h)
	}
	b.screenshot("histogram")
}
