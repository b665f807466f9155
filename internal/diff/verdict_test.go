package diff

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/frame"
)

func i64p(v int64) *int64 { return &v }

// TestVerdicts: the CI verdict of every diff result, including the results
// it refuses to judge (an error, never a pass).
func TestVerdicts(t *testing.T) {
	ok := RowCountMeta{Status: StatusOK}
	rc := func(models map[string]*RowCount) *RowCountDiffResult { return &RowCountDiffResult{Models: models} }
	df := func(rows ...[]any) *frame.Frame {
		f := frame.New([2]string{"id", frame.Integer})
		for _, r := range rows {
			f.Append(r...)
		}
		return f
	}
	capped := df([]any{1})
	capped.More = true
	vdData := func(p ...any) *frame.Frame {
		f := frame.New([2]string{"column", frame.Text}, [2]string{"matched", frame.Number}, [2]string{"matched_p", frame.Number})
		for _, x := range p {
			f.Append("c", 1, x)
		}
		return f
	}
	cases := []struct {
		name    string
		v       interface{ Mismatch() (bool, error) }
		want    bool
		wantErr string
	}{
		{"row counts equal", rc(map[string]*RowCount{"a": {Base: i64p(2), Current: i64p(2), BaseMeta: ok, CurrentMeta: ok}}), false, ""},
		{"row counts differ", rc(map[string]*RowCount{"a": {Base: i64p(2), Current: i64p(3), BaseMeta: ok, CurrentMeta: ok}}), true, ""},
		{"added model", rc(map[string]*RowCount{"a": {Current: i64p(3), BaseMeta: RowCountMeta{Status: StatusNotInManifest}, CurrentMeta: ok}}), true, ""},
		{"ephemeral both sides", rc(map[string]*RowCount{"e": {BaseMeta: RowCountMeta{Status: StatusUnsupportedMaterialization}, CurrentMeta: RowCountMeta{Status: StatusUnsupportedMaterialization}}}), false, ""},
		{"table missing", rc(map[string]*RowCount{"a": {Base: i64p(2), BaseMeta: ok, CurrentMeta: RowCountMeta{Status: StatusTableNotFound}}}), false, "a (current: table_not_found)"},
		{"typo", rc(map[string]*RowCount{"custmers": {BaseMeta: RowCountMeta{Status: StatusNotInManifest}, CurrentMeta: RowCountMeta{Status: StatusNotInManifest}}}), false, "custmers (in neither manifest)"},
		{"schema change", &SchemaDiffResult{Frame: df([]any{1}), Coverage: SchemaCoverage{Status: CoverageComplete}}, true, ""},
		{"schema unchanged", &SchemaDiffResult{Frame: df(), Coverage: SchemaCoverage{Status: CoverageComplete}}, false, ""},
		{"schema partial", &SchemaDiffResult{Frame: df(), Coverage: SchemaCoverage{Status: CoveragePartial, UncheckedNodeCount: 1, UncheckedNodes: []string{"model.x"}}}, false, "1 nodes could not be compared (model.x)"},
		{"keyed diff rows", &QueryDiffResult{Diff: df([]any{1})}, true, ""},
		{"keyed diff empty", &QueryDiffResult{Diff: df()}, false, ""},
		{"sides equal, int vs float", &QueryDiffResult{Base: df([]any{int64(1)}), Current: df([]any{1.0})}, false, ""},
		{"sides differ", &QueryDiffResult{Base: df([]any{1}), Current: df([]any{2})}, true, ""},
		{"capped sides agree", &QueryDiffResult{Base: capped, Current: capped}, false, "pass primary_keys"},
		{"value diff changed", &ValueDiffResult{Summary: ValueDiffSummary{Total: 3, Changed: 1}, Data: vdData(1.0)}, true, ""},
		{"value diff matched_p below 1", &ValueDiffResult{Summary: ValueDiffSummary{Total: 3}, Data: vdData(1.0, 0.5)}, true, ""},
		{"value diff clean", &ValueDiffResult{Summary: ValueDiffSummary{Total: 3}, Data: vdData(1.0, nil)}, false, ""},
		{"value diff without data", &ValueDiffResult{}, false, "no data to judge"},
		{"detail rows", &ValueDiffDetailResult{Frame: df([]any{1})}, true, ""},
		{"detail empty", &ValueDiffDetailResult{Frame: df()}, false, ""},
		{"profiles equal", &ProfileDiffResult{Base: df([]any{1}), Current: df([]any{1})}, false, ""},
		{"profile of an added model", &ProfileDiffResult{Current: df([]any{1})}, true, ""},
		{"top-k differ", &TopKDiffResult{Base: TopKSide{Values: []any{"a"}, Counts: []int64{1}}, Current: TopKSide{Values: []any{"a"}, Counts: []int64{2}}}, true, ""},
		{"histograms equal", &HistogramDiffResult{Base: HistogramSide{Counts: []int64{1}, Total: 1}, Current: HistogramSide{Counts: []int64{1}, Total: 1}}, false, ""},
		{"query", &QueryResult{}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.v.Mismatch()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Mismatch() error = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Mismatch() = %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

// TestRowCountJSON: the flat map, a model named run_id keeping its key.
func TestRowCountJSON(t *testing.T) {
	r := &RowCountDiffResult{RunID: "r1", Models: map[string]*RowCount{
		"orders": {Base: i64p(1), Current: i64p(2), BaseMeta: RowCountMeta{Status: StatusOK}, CurrentMeta: RowCountMeta{Status: StatusOK}},
	}}
	got, _ := json.Marshal(r)
	if string(got) != `{"orders":{"base":1,"curr":2,"base_meta":{"status":"ok"},"curr_meta":{"status":"ok"}},"run_id":"r1"}` {
		t.Errorf("JSON = %s", got)
	}
	var back RowCountDiffResult
	if err := json.Unmarshal(got, &back); err != nil || back.RunID != "r1" || *back.Models["orders"].Current != 2 {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	r.Models["run_id"] = &RowCount{Base: i64p(7), Current: i64p(7)}
	got, _ = json.Marshal(r)
	if !strings.Contains(string(got), `"run_id":{"base":7`) || strings.Contains(string(got), `"r1"`) {
		t.Errorf("a model named run_id must keep its data: %s", got)
	}
}
