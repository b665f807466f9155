package corpus_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/cli"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/web"
)

// TestEverySurfaceAgrees is issue #23's one-answer test: on the demo and on
// the build of every corpus case (the demo, and the demo with base and
// current in one schema), every surface gives every node the same verdict —
// impact_analysis (the reference), MCP lineage_diff's verdict column,
// get_cll's change analysis, column_impact, render_lineage_mermaid's and the
// summary's diagram classes and the summary's table, and the web API.
func TestEverySurfaceAgrees(t *testing.T) {
	variants := map[bool]bool{false: true}
	dirs, _ := filepath.Glob(filepath.Join("testdata", "*", "args.json"))
	for _, p := range dirs {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var c Case
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		variants[c.BaseInCurrentSchema] = true
	}
	for _, w := range []string{"duckdb", "postgres"} {
		for _, shared := range []bool{false, true} {
			if !variants[shared] {
				continue
			}
			name := w + "/demo"
			if shared {
				name += "_base_in_current_schema"
			}
			t.Run(name, func(t *testing.T) {
				e := needEnv(t, w)
				if shared {
					cp := *e
					cp.globals = append(append([]string{}, e.globals...), "--target-base-path", baseInCurrentSchema(t, e))
					e = &cp
				}
				assertSurfacesAgree(t, e)
			})
		}
	}
}

func assertSurfacesAgree(t *testing.T, e *env) {
	state := filepath.Join(t.TempDir(), "state.json")
	cs := connectMCP(t, e, state)
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		o := callMCP(t, cs, Step{Name: name, Arguments: args})
		if o.Error != "" {
			t.Fatalf("%s: %s", name, o.Error)
		}
		return o.Result.(map[string]any)
	}

	// lineage_diff over every node: ids, names, change statuses, verdicts.
	ld := call("lineage_diff", map[string]any{"view_mode": "all"})
	idOf, statusOf, ldVerdict, typeOf := map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	for _, r := range frameRecords(t, ld["nodes"]) {
		id := r["id"].(string)
		idOf[r["name"].(string)] = id
		typeOf[id], _ = r["resource_type"].(string)
		statusOf[id], _ = r["change_status"].(string)
		ldVerdict[id], _ = r["verdict"].(string)
	}

	// The reference: impact_analysis, every name (detail=full).
	ia := call("impact_analysis", map[string]any{"detail": "full"})
	want := verdictsOfImpact(t, ia, idOf)
	if len(want) == 0 {
		t.Fatal("impact_analysis lists no model")
	}
	check := func(surface string, got map[string]string, ids []string) {
		t.Helper()
		for _, id := range ids {
			if got[id] != want[id] {
				t.Errorf("%s: %s is %q, impact_analysis says %q", surface, id, got[id], want[id])
			}
		}
	}
	models := sortedIDs(want)
	check("lineage_diff", ldVerdict, models)
	for id, v := range ldVerdict {
		if typeOf[id] == "model" && want[id] == "" && v != "not_impacted" && statusOf[id] != "removed" {
			t.Errorf("lineage_diff: model %s is %q but impact_analysis does not list it", id, v)
		}
	}

	// get_cll's change analysis: verdict, and impacted = verdict impacted.
	cll := call("get_cll", map[string]any{"change_analysis": true})
	cllVerdict := map[string]string{}
	var cllIDs []string
	for id, n := range cll["nodes"].(map[string]any) {
		node := n.(map[string]any)
		v, _ := node["verdict"].(string)
		imp, _ := node["impacted"].(bool)
		if imp != (v == "impacted") {
			t.Errorf("get_cll: %s impacted %v but verdict %q", id, imp, v)
		}
		cllVerdict[id] = v
		if want[id] != "" {
			cllIDs = append(cllIDs, id)
		}
	}
	if len(cllIDs) == 0 {
		t.Error("get_cll's change analysis returned none of the listed models")
	}
	check("get_cll", cllVerdict, cllIDs)

	// column_impact of every modified model: the verdict of each model reached.
	for id, st := range statusOf {
		if st != "modified" || typeOf[id] != "model" {
			continue
		}
		o := callMCP(t, cs, Step{Name: "column_impact", Arguments: map[string]any{"node_id": id}})
		if o.Error != "" {
			continue // a model without analysable lineage (not this test's subject)
		}
		ci := map[string]string{}
		var ids []string
		res := o.Result.(map[string]any)
		for _, key := range []string{"models", "not_reached"} {
			list, _ := res[key].([]any)
			for _, m := range list {
				mm := m.(map[string]any)
				n := mm["node"].(string)
				ci[n], _ = mm["verdict"].(string)
				if want[n] != "" {
					ids = append(ids, n)
				}
			}
		}
		check("column_impact of "+id, ci, ids)
	}

	// The diagrams: class = change status, else the verdict's class.
	wantClass := func(id string) string {
		if s := statusOf[id]; s != "" {
			return s
		}
		switch want[id] {
		case "impacted":
			return "impacted"
		case "ruled_out":
			return "ruled_out"
		}
		return "unchanged"
	}
	mm := call("render_lineage_mermaid", map[string]any{})
	classes := mermaidClasses(t, mm["mermaid"].(string), idOf)
	checkClasses := func(surface string, classes map[string]string) {
		t.Helper()
		for _, id := range models {
			if c, ok := classes[id]; ok && c != wantClass(id) {
				t.Errorf("%s: %s drawn %q, want %q", surface, id, c, wantClass(id))
			}
		}
	}
	checkClasses("render_lineage_mermaid", classes)
	for _, id := range models {
		if _, ok := classes[id]; !ok && want[id] != "not_impacted" {
			t.Errorf("render_lineage_mermaid does not draw %s (%s)", id, want[id])
		}
	}

	// The summary: its diagram and its table list what impact_analysis lists.
	md := call("summary", map[string]any{})["markdown"].(string)
	sumClasses := mermaidClasses(t, md, idOf)
	checkClasses("summary diagram", sumClasses)
	tableRow := regexp.MustCompile(`(?m)^\| ([a-z_0-9]+) \| (modified|added|removed|downstream) \|`)
	listed := map[string]bool{}
	for _, m := range tableRow.FindAllStringSubmatch(md, -1) {
		listed[idOf[m[1]]] = true
	}
	for _, id := range models {
		if listed[id] != (want[id] == "impacted") {
			t.Errorf("summary table lists %s: %v, impact_analysis says %q", id, listed[id], want[id])
		}
		if want[id] == "ruled_out" && sumClasses[id] != "ruled_out" {
			t.Errorf("summary diagram: ruled-out %s drawn %q", id, sumClasses[id])
		}
	}
	c := ia["counts"].(map[string]any)
	sentence := regexp.MustCompile(`(\d+) impacted \((\d+) modified, (\d+) added, (\d+) removed, (\d+) downstream\), (\d+) not impacted`).FindStringSubmatch(md)
	if sentence == nil || sentence[2] != num(c["modified"]) || sentence[3] != num(c["added"]) || sentence[4] != num(c["removed"]) ||
		sentence[5] != num(c["downstream"]) || sentence[6] != num(c["not_impacted"]) {
		t.Errorf("summary counts %v, impact_analysis counts %v", sentence, c)
	}

	// The web API (what the UI's graph, impact screen and model panel read).
	g, err := cli.ParseGlobals(append(append([]string{}, e.globals...), "--state-file", state))
	if err != nil {
		t.Fatal(err)
	}
	sess := g.NewSession(cli.IOStreams{Out: io.Discard, ErrOut: io.Discard})
	t.Cleanup(func() { _ = sess.Close() })
	srv, err := web.New(web.Options{Registry: ops.Default(), Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	post := func(path string, args any) map[string]any {
		t.Helper()
		body, _ := json.Marshal(args)
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, hs.URL+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, raw)
		}
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	webLD := map[string]string{}
	for _, r := range frameRecords(t, post("/api/ui/lineage", map[string]any{"view_mode": "all"})["nodes"]) {
		webLD[r["id"].(string)], _ = r["verdict"].(string)
	}
	check("web /api/ui/lineage", webLD, models)
	check("web impact_analysis", verdictsOfImpact(t, post("/api/ops/impact_analysis", map[string]any{"detail": "full"}), idOf), models)
}

// verdictsOfImpact reads impact_analysis's answer per model id.
func verdictsOfImpact(t *testing.T, ia map[string]any, idOf map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range ia["confirmed_impacted_models"].([]any) {
		mm := m.(map[string]any)
		out[mm["unique_id"].(string)] = "impacted"
		if mm["classification"] == "downstream" && mm["code_changed_columns"] != nil {
			t.Errorf("downstream %s has code_changed_columns %v", mm["name"], mm["code_changed_columns"])
		}
	}
	for _, n := range ia["confirmed_not_impacted_models"].([]any) {
		id := idOf[n.(string)]
		if id == "" {
			t.Fatalf("not-impacted model %v is not in lineage_diff", n)
		}
		out[id] = "not_impacted"
	}
	ruled, _ := ia["not_impacted_by_column_lineage"].([]any)
	for _, n := range ruled {
		out[n.(map[string]any)["unique_id"].(string)] = "ruled_out"
	}
	c := ia["counts"].(map[string]any)
	listed := len(ia["confirmed_impacted_models"].([]any))
	if int(c["modified"].(float64)+c["added"].(float64)+c["removed"].(float64)+c["downstream"].(float64)) != listed ||
		int(c["not_impacted"].(float64)) != len(ia["confirmed_not_impacted_models"].([]any)) {
		t.Errorf("counts %v do not add up to %d impacted, %d not impacted", c, listed, len(ia["confirmed_not_impacted_models"].([]any)))
	}
	return out
}

var (
	mermaidNode  = regexp.MustCompile(`(?m)^\s+(n\d+)[^"\n]*"([^"<]+)`)
	mermaidClass = regexp.MustCompile(`(?m)^\s+class (n\d+) (\w+)$`)
)

// mermaidClasses maps each drawn node's id to its class.
func mermaidClasses(t *testing.T, src string, idOf map[string]string) map[string]string {
	t.Helper()
	alias := map[string]string{}
	for _, m := range mermaidNode.FindAllStringSubmatch(src, -1) {
		alias[m[1]] = idOf[m[2]]
	}
	out := map[string]string{}
	for _, m := range mermaidClass.FindAllStringSubmatch(src, -1) {
		if id := alias[m[1]]; id != "" {
			out[id] = m[2]
		}
	}
	if len(out) == 0 {
		t.Fatalf("no classed node in:\n%s", src)
	}
	return out
}

// frameRecords turns a compact frame ({columns, data}) into records.
func frameRecords(t *testing.T, v any) []map[string]any {
	t.Helper()
	f, _ := v.(map[string]any)
	cols, _ := f["columns"].([]any)
	rows, _ := f["data"].([]any)
	var out []map[string]any
	for _, r := range rows {
		rec := map[string]any{}
		for i, c := range cols {
			rec[c.(map[string]any)["key"].(string)] = r.([]any)[i]
		}
		out = append(out, rec)
	}
	if len(out) == 0 {
		t.Fatalf("empty frame %v", v)
	}
	return out
}

func sortedIDs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func num(v any) string {
	b, _ := json.Marshal(v)
	return strings.TrimSpace(string(b))
}
