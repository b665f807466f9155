package checks

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMismatch(t *testing.T) {
	cases := []struct {
		name, typ, result string
		want              bool
		wantErr           string
	}{
		{"row counts equal", TypeRowCountDiff, `{"orders":{"base":10,"current":10,"base_meta":{"status":"ok"}},"run_id":"x"}`, false, ""},
		{"row counts differ", TypeRowCountDiff, `{"orders":{"base":10,"current":10},"customers":{"base":3,"current":4}}`, true, ""},
		{"row counts under results, curr spelling", TypeRowCountDiff, `{"results":{"orders":{"base":10,"curr":11}}}`, true, ""},
		{"row count added table", TypeRowCountDiff, `{"orders":{"base":null,"current":5}}`, true, ""},
		{"row count missing both sides", TypeRowCountDiff, `{"orders":{"base":null,"current":null}}`, false, ""},
		{"row counts 1 vs 1.0", TypeRowCountDiff, `{"orders":{"base":1,"current":1.0}}`, false, ""},
		{"value diff clean", TypeValueDiff, `{"summary":{"total":10,"added":0,"removed":0,"changed":0}}`, false, ""},
		{"value diff added", TypeValueDiff, `{"summary":{"total":10,"added":1,"removed":0}}`, true, ""},
		{"value diff changed", TypeValueDiff, `{"summary":{"added":0,"removed":0,"changed":2}}`, true, ""},
		{"value diff matched_p rows", TypeValueDiff, `{"summary":{"added":0,"removed":0},"data":[{"column":"id","matched_p":1},{"column":"amount","matched_p":0.5}]}`, true, ""},
		{"value diff matched_p table", TypeValueDiff, `{"summary":{"added":0,"removed":0},"data":{"columns":[{"key":"column"},{"key":"matched"},{"key":"matched_p"}],"data":[["id",10,1.0],["amount",9,0.9]]}}`, true, ""},
		{"value diff matched_p all 1", TypeValueDiff, `{"summary":{"added":0,"removed":0},"data":{"columns":["column","matched","matched_p"],"data":[["id",10,1]]}}`, false, ""},
		{"value diff detail no rows", TypeValueDiffDetail, `{"columns":["id","in_a","in_b"],"data":[]}`, false, ""},
		{"value diff detail rows", TypeValueDiffDetail, `{"rows":[{"id":1,"in_a":true,"in_b":false}]}`, true, ""},
		{"schema diff empty list", TypeSchemaDiff, `[]`, false, ""},
		{"schema diff changes", TypeSchemaDiff, `{"nodes":{"orders":{"changes":[{"column":"a","change":"added"}]}}}`, true, ""},
		{"schema diff no changes", TypeSchemaDiff, `{"nodes":{"orders":{"changes":[]}},"schema_coverage":"complete"}`, false, ""},
		{"schema diff change_status", TypeSchemaDiff, `{"orders":{"change_status":"modified"}}`, true, ""},
		{"lineage diff unchanged", TypeLineageDiff, `{"nodes":{"model.a":{"change_status":null},"model.b":{}}}`, false, ""},
		{"lineage diff modified node", TypeLineageDiff, `{"nodes":[{"id":"model.a"},{"id":"model.b","change_status":"modified"}]}`, true, ""},
		{"query diff with diff rows", TypeQueryDiff, `{"base":null,"current":null,"diff":{"columns":["id"],"data":[[1]]}}`, true, ""},
		{"query diff with empty diff", TypeQueryDiff, `{"diff":{"columns":["id"],"data":[]}}`, false, ""},
		{"query diff client side equal", TypeQueryDiff, `{"base":{"data":[[1]]},"current":{"data":[[1.0]]},"diff":null}`, false, ""},
		{"query diff client side differ", TypeQueryDiff, `{"base":{"data":[[1]]},"current":{"data":[[2]]}}`, true, ""},
		{"profile equal", TypeProfileDiff, `{"base":{"data":[["a",10]]},"current":{"data":[["a",10]]}}`, false, ""},
		{"top k differ", TypeTopKDiff, `{"base":{"values":["a"],"counts":[1],"valids":1,"total":1},"current":{"values":["a"],"counts":[2],"valids":2,"total":2}}`, true, ""},
		{"histogram equal", TypeHistogramDiff, `{"base":{"counts":[1,2],"total":3},"current":{"counts":[1,2],"total":3},"min":0,"max":1}`, false, ""},
		{"single env query", TypeQuery, `{"data":[[1]]}`, false, ""},
		{"single env ignores result", TypeRowCount, ``, false, ""},
		{"unknown type", "bogus", `{}`, false, "unknown check type"},
		{"no result", TypeValueDiff, `null`, false, "no result"},
		{"invalid json", TypeValueDiff, `{`, false, "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Mismatch(c.typ, json.RawMessage(c.result))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Mismatch = %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

func FuzzMismatch(f *testing.F) {
	f.Add(TypeRowCountDiff, `{"results":{"a":{"base":1,"current":2}}}`)
	f.Add(TypeValueDiff, `{"summary":{"added":1},"data":{"columns":["matched_p"],"data":[[0.5]]}}`)
	f.Add(TypeLineageDiff, `{"nodes":[{"change_status":"added"}]}`)
	f.Add(TypeSchemaDiff, `{"changes":{}}`)
	f.Fuzz(func(t *testing.T, typ, result string) {
		_, _ = Mismatch(typ, json.RawMessage(result)) // must not panic
	})
}

func FuzzDecodeState(f *testing.F) {
	st := NewState()
	st.Checks = append(st.Checks, Check{ID: "c", Type: TypeSchemaDiff, Params: json.RawMessage(`{}`)})
	st.Runs = append(st.Runs, Run{ID: "r", Type: TypeQuery, Params: json.RawMessage(`{"sql":"x"}`), Status: StatusFinished})
	seed, _ := EncodeState(st)
	f.Add(seed)
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"checks":[{"check_id":"a"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := DecodeState(data)
		if err != nil {
			return
		}
		// Whatever loads must re-encode and load again to the same checks and runs.
		out, err := EncodeState(st)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, err := DecodeState(out)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", out, err)
		}
		if len(again.Checks) != len(st.Checks) || len(again.Runs) != len(st.Runs) {
			t.Fatalf("round trip changed counts")
		}
	})
}

func FuzzCanonicalParams(f *testing.F) {
	f.Add(`{"b":1,"a":[1,{"d":2,"c":"<x>"}]}`)
	f.Add(`null`)
	f.Add(`1e400`)
	f.Fuzz(func(t *testing.T, in string) {
		c1, err := CanonicalParams(json.RawMessage(in))
		if err != nil {
			return
		}
		c2, err := CanonicalParams(c1)
		if err != nil || string(c1) != string(c2) {
			t.Fatalf("not idempotent: %s -> %s (%v)", c1, c2, err)
		}
	})
}
