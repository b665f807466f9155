package checks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRunJSONIsThePeersRunDump(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 678, time.UTC)
	end := at.Add(2 * time.Second)
	r := Run{ID: "r1", Type: TypeRowCountDiff, Params: json.RawMessage(`{"node_names":["orders"]}`), Status: StatusFinished,
		Result: json.RawMessage(`{"orders":{"base":1,"curr":2}}`), StartedAt: at, FinishedAt: &end, TriggeredBy: TriggerAgent, CheckID: "c1"}
	got, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"run_id":"r1","type":"row_count_diff","name":"Row count diff of orders","params":{"node_names":["orders"]},"check_id":"c1",` +
		`"result":{"orders":{"base":1,"curr":2}},"error":null,"status":"Finished","progress":null,"run_at":"2026-01-02T03:04:05Z",` +
		`"triggered_by":"recce_ai","finished_at":"2026-01-02T03:04:07Z"}`
	if string(got) != want {
		t.Fatalf("Run JSON\n got %s\nwant %s", got, want)
	}
	// An ad-hoc failed run: check_id and result null, error set.
	failed, _ := json.Marshal(Run{ID: "r2", Type: TypeQuery, Status: StatusFailed, Error: "boom", StartedAt: at, TriggeredBy: TriggerUser})
	if !strings.Contains(string(failed), `"check_id":null,"result":null,"error":"boom","status":"Failed"`) {
		t.Fatalf("failed run JSON = %s", failed)
	}
	var back Run
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if back.ID != "r1" || back.CheckID != "c1" || back.Status != StatusFinished || !back.StartedAt.Equal(at.Truncate(time.Second)) ||
		back.FinishedAt == nil || !back.FinishedAt.Equal(end.Truncate(time.Second)) || back.TriggeredBy != TriggerAgent || back.Error != "" {
		t.Fatalf("round trip = %+v", back)
	}
}

func TestRunReadsOlderSpellings(t *testing.T) {
	// Ripple before this release wrote started_at, lowercase statuses and "agent".
	var r Run
	if err := json.Unmarshal([]byte(`{"run_id":"a","type":"query","params":{},"status":"finished","started_at":"2026-01-02T03:04:05.5Z","triggered_by":"agent"}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusFinished || r.TriggeredBy != TriggerAgent || !r.StartedAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 5e8, time.UTC)) {
		t.Fatalf("legacy run = %+v", r)
	}
	for _, bad := range []string{`{"status":"done"}`, `{"triggered_by":"robot"}`, `{"run_at":"yesterday"}`} {
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}

func FuzzDecodeState(f *testing.F) {
	st := NewState()
	st.Checks = append(st.Checks, Check{ID: "c", Type: TypeSchemaDiff, Params: json.RawMessage(`{}`)})
	st.Runs = append(st.Runs, Run{ID: "r", Type: TypeQuery, Params: json.RawMessage(`{"sql_template":"x"}`), Status: StatusFinished})
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
