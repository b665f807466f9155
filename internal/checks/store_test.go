package checks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a deterministic time source advancing one second per reading.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// fakeRunner answers row_count_diff with equal counts unless params ask otherwise:
// {"select": "fail"} fails, {"select": "diff"} returns differing counts, {"select": "block"}
// waits for cancellation. It is also the store's Catalog, standing in for the operation
// registry: the types below are check types, value_diff needs primary_key, and a row count
// result mismatches when base != current.
func fakeRunner() Runner { return fakeCatalog{} }

type fakeCatalog struct{}

func (fakeCatalog) Run(ctx context.Context, typ string, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		Select string `json:"select"`
	}
	_ = json.Unmarshal(params, &p)
	switch p.Select {
	case "fail":
		return nil, errors.New("table not found")
	case "diff":
		return json.RawMessage(`{"orders":{"base":1,"current":2}}`), nil
	case "block":
		<-ctx.Done()
		return nil, ctx.Err()
	case "panic":
		panic("boom")
	}
	return json.RawMessage(`{"orders":{"base":1,"current":1}}`), nil
}

func (fakeCatalog) CheckParams(typ string, params json.RawMessage) (json.RawMessage, error) {
	required := map[string]string{TypeValueDiff: "primary_key", TypeProfileDiff: "model"}
	switch typ {
	case TypeRowCountDiff, TypeSchemaDiff, TypeLineageDiff, TypeProfileDiff, TypeValueDiff, TypeValueDiffDetail, TypeQueryDiff, TypeTopKDiff, TypeHistogramDiff:
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownType, typ)
	}
	if p := required[typ]; p != "" && !strings.Contains(string(params), `"`+p+`"`) {
		return nil, &ParamError{Type: typ, Param: p, Msg: "is required"}
	}
	return params, nil
}

func (fakeCatalog) Mismatch(typ string, result json.RawMessage) (bool, error) {
	var counts map[string]struct{ Base, Current int }
	if err := json.Unmarshal(result, &counts); err != nil {
		return false, err
	}
	for _, c := range counts {
		if c.Base != c.Current {
			return true, nil
		}
	}
	return false, nil
}

func newTestStore(t *testing.T) *Store {
	t.Helper()
	return NewStore(Config{Runner: fakeRunner(), Now: newClock().Now}, nil)
}

func mustCreate(t *testing.T, s *Store, in CreateInput) CreateResult {
	t.Helper()
	res, err := s.Create(context.Background(), in)
	if err != nil {
		t.Fatalf("Create(%+v): %v", in, err)
	}
	return res
}

func TestCreateIsIdempotentOnTypeAndCanonicalParams(t *testing.T) {
	s := newTestStore(t)
	first := mustCreate(t, s, CreateInput{Type: TypeValueDiff, Params: json.RawMessage(`{"model":"orders","primary_key":"id"}`)})
	if !first.Created || first.Check.Name != "Value diff of orders" {
		t.Fatalf("first create = %+v", first)
	}
	// Same params, different key order and whitespace: same check, name/description updated.
	second := mustCreate(t, s, CreateInput{Type: TypeValueDiff, Params: json.RawMessage(` { "primary_key" : "id", "model": "orders" }`), Name: "Orders", Description: "pk check"})
	if second.Created || second.CheckID != first.CheckID {
		t.Fatalf("second create = %+v, want same check %s", second, first.CheckID)
	}
	if second.Check.Name != "Orders" || second.Check.Description != "pk check" {
		t.Fatalf("name/description not updated: %+v", second.Check)
	}
	// An empty name does not erase the existing one.
	third := mustCreate(t, s, CreateInput{Type: TypeValueDiff, Params: json.RawMessage(`{"model":"orders","primary_key":"id"}`)})
	if third.Check.Name != "Orders" {
		t.Fatalf("name = %q, want Orders", third.Check.Name)
	}
	// Different params or type: a new check.
	mustCreate(t, s, CreateInput{Type: TypeValueDiff, Params: json.RawMessage(`{"model":"orders","primary_key":["id"]}`)})
	mustCreate(t, s, CreateInput{Type: TypeValueDiffDetail, Params: json.RawMessage(`{"model":"orders","primary_key":"id"}`)})
	l := s.List(time.Time{})
	if l.Total != 3 || len(l.Checks) != 3 || l.Approved != 0 {
		t.Fatalf("list = %+v, want 3 checks none approved", l)
	}
}

func TestCreateValidates(t *testing.T) {
	s := newTestStore(t)
	cases := []struct {
		typ, params, want string
	}{
		{"nope", `{}`, `unknown check type "nope"`},
		{"", `{}`, `unknown check type: the type is required`},
		{TypeValueDiff, `[1]`, "params must be a JSON object"},
		{TypeValueDiff, `{"model":`, "params are not valid JSON"},
		{TypeValueDiff, `{"model":"orders"}`, `value_diff: param "primary_key" is required`},
	}
	for _, c := range cases {
		_, err := s.Create(context.Background(), CreateInput{Type: c.typ, Params: json.RawMessage(c.params)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Create(%s, %s) error = %v, want containing %q", c.typ, c.params, err, c.want)
		}
	}
	if got := s.List(time.Time{}).Total; got != 0 {
		t.Fatalf("invalid creates left %d checks", got)
	}
	// Without a Catalog only the shape of params is checked, and no verdict is given.
	bare := NewStore(Config{Runner: RunnerFunc(fakeCatalog{}.Run), Now: newClock().Now}, nil)
	res, err := bare.Create(context.Background(), CreateInput{Type: "anything", Params: json.RawMessage(`{"b":1,"a":2}`), Run: true})
	if err != nil || string(res.Check.Params) != `{"a":2,"b":1}` || !res.RunExecuted {
		t.Fatalf("bare create = %+v, %v", res, err)
	}
	if m := bare.List(time.Time{}).Checks[0].Mismatched; m != nil {
		t.Fatalf("verdict without a catalog: %v", *m)
	}
}

func TestRunAndRerunRecordEveryRun(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	c := mustCreate(t, s, CreateInput{Type: TypeRowCountDiff, Params: json.RawMessage(`{"select":"diff"}`)}).Check
	r1, err := s.RunCheck(ctx, c.ID, TriggerUser)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s.RunCheck(ctx, c.ID, TriggerUser)
	if err != nil {
		t.Fatal(err)
	}
	if r1.ID == r2.ID || r1.Status != StatusFinished || r2.Status != StatusFinished {
		t.Fatalf("runs %+v %+v", r1, r2)
	}
	if string(r2.Result) != `{"orders":{"base":1,"current":2}}` || r2.CheckID != c.ID || r2.FinishedAt == nil {
		t.Fatalf("run 2 = %+v", r2)
	}
	got, _ := s.Get(c.ID)
	if got.LastRunID != r2.ID || !got.LastRunAt.Equal(r2.StartedAt) {
		t.Fatalf("last run = %s at %v, want %s", got.LastRunID, got.LastRunAt, r2.ID)
	}
	if runs := s.Runs(c.ID); len(runs) != 2 || runs[0].ID != r1.ID || runs[1].ID != r2.ID {
		t.Fatalf("Runs = %+v", runs)
	}
	l := s.List(time.Time{})
	if l.Checks[0].LastRunStatus != StatusFinished || l.Checks[0].Mismatched == nil || !*l.Checks[0].Mismatched {
		t.Fatalf("list info = %+v", l.Checks[0])
	}
	// Ad-hoc execution is recorded too, without a check.
	adhoc, err := s.Execute(ctx, TypeRowCountDiff, json.RawMessage(`{"select":"fail"}`), TriggerAgent)
	if err != nil {
		t.Fatal(err)
	}
	if adhoc.Status != StatusFailed || adhoc.Error != "table not found" || adhoc.CheckID != "" {
		t.Fatalf("adhoc = %+v", adhoc)
	}
	if n := len(s.Runs("")); n != 3 {
		t.Fatalf("%d runs, want 3", n)
	}
	if _, err := s.RunCheck(ctx, "missing", TriggerUser); !errors.Is(err, ErrNotFound) {
		t.Fatalf("RunCheck(missing) = %v", err)
	}
	if _, err := NewStore(Config{}, nil).Execute(ctx, TypeRowCountDiff, nil, TriggerUser); !errors.Is(err, ErrNoRunner) {
		t.Fatalf("Execute without runner = %v", err)
	}
}

func TestApprovalRules(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		by      Trigger
		sel     string
		wantApp bool
		wantSt  Status
	}{
		{"agent success approves", TriggerAgent, "ok", true, StatusFinished},
		{"agent success with differences approves", TriggerAgent, "diff", true, StatusFinished},
		{"agent failure does not approve", TriggerAgent, "fail", false, StatusFailed},
		{"agent panic is a failure", TriggerAgent, "panic", false, StatusFailed},
		{"user success does not approve", TriggerUser, "ok", false, StatusFinished},
	}
	for _, c := range cases {
		t.Run(c.name+" (create)", func(t *testing.T) {
			s := newTestStore(t)
			res := mustCreate(t, s, CreateInput{Type: TypeRowCountDiff, Params: json.RawMessage(`{"select":"` + c.sel + `"}`), TriggeredBy: c.by, Run: true})
			if res.Check.IsChecked != c.wantApp || res.Run == nil || res.Run.Status != c.wantSt {
				t.Fatalf("create+run = %+v run %+v", res.Check, res.Run)
			}
			if res.RunExecuted != (c.wantSt == StatusFinished) || (res.RunError != "") == (c.wantSt == StatusFinished) {
				t.Fatalf("run_executed=%v run_error=%q", res.RunExecuted, res.RunError)
			}
		})
		t.Run(c.name+" (run)", func(t *testing.T) {
			s := newTestStore(t)
			id := mustCreate(t, s, CreateInput{Type: TypeRowCountDiff, Params: json.RawMessage(`{"select":"` + c.sel + `"}`)}).CheckID
			if _, err := s.RunCheck(ctx, id, c.by); err != nil {
				t.Fatal(err)
			}
			got, _ := s.Get(id)
			if got.IsChecked != c.wantApp {
				t.Fatalf("is_checked = %v, want %v", got.IsChecked, c.wantApp)
			}
		})
	}
	t.Run("explicit approve and unapprove", func(t *testing.T) {
		s := newTestStore(t)
		id := mustCreate(t, s, CreateInput{Type: TypeSchemaDiff, Params: nil}).CheckID
		if c, err := s.Approve(ctx, id); err != nil || !c.IsChecked {
			t.Fatalf("Approve = %+v, %v", c, err)
		}
		if l := s.List(time.Time{}); l.Approved != 1 {
			t.Fatalf("approved = %d", l.Approved)
		}
		if c, err := s.Unapprove(ctx, id); err != nil || c.IsChecked {
			t.Fatalf("Unapprove = %+v, %v", c, err)
		}
		if _, err := s.Approve(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Approve(nope) = %v", err)
		}
	})
}

func TestOutdated(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	ran := mustCreate(t, s, CreateInput{Type: TypeRowCountDiff, Params: json.RawMessage(`{}`), Run: true}).Check
	never := mustCreate(t, s, CreateInput{Type: TypeSchemaDiff}).Check
	runAt := *ran.LastRunAt
	cases := []struct {
		name     string
		artifact time.Time
		want     bool
	}{
		{"unknown artifact time", time.Time{}, false},
		{"artifacts older", runAt.Add(-time.Hour), false},
		{"artifacts same instant", runAt, false},
		{"artifacts newer", runAt.Add(time.Nanosecond), true},
	}
	for _, c := range cases {
		if got := ran.Outdated(c.artifact); got != c.want {
			t.Errorf("%s: Outdated = %v, want %v", c.name, got, c.want)
		}
		if never.Outdated(c.artifact) {
			t.Errorf("%s: never-run check reported outdated", c.name)
		}
	}
	l := s.List(runAt.Add(time.Minute))
	if l.Outdated != 1 || !l.Checks[0].IsOutdated || l.Checks[1].IsOutdated {
		t.Fatalf("list = %+v", l)
	}
	// Re-running after the artifacts changed clears it.
	if _, err := s.RunCheck(ctx, ran.ID, TriggerUser); err != nil {
		t.Fatal(err)
	}
	if l := s.List(runAt.Add(time.Second)); l.Outdated != 0 {
		t.Fatalf("after rerun outdated = %d", l.Outdated)
	}
}

func TestUpdateDeleteReorder(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	var ids []string
	for _, m := range []string{"a", "b", "c", "d"} {
		ids = append(ids, mustCreate(t, s, CreateInput{Type: TypeProfileDiff, Params: json.RawMessage(`{"model":"` + m + `"}`)}).CheckID)
	}
	order := func() string {
		var out string
		for _, c := range s.List(time.Time{}).Checks {
			var p struct{ Model string }
			_ = json.Unmarshal(c.Params, &p)
			out += p.Model
		}
		return out
	}
	steps := []struct {
		id    int
		index int
		want  string
	}{
		{3, 0, "dabc"}, {3, 3, "abcd"}, {0, 2, "bcad"}, {2, 1, "bcad"}, {1, 0, "bcad"},
	}
	for _, st := range steps {
		if err := s.Reorder(ctx, ids[st.id], st.index); err != nil {
			t.Fatal(err)
		}
		if got := order(); got != st.want {
			t.Fatalf("Reorder(%d,%d) = %s, want %s", st.id, st.index, got, st.want)
		}
	}
	if err := s.Reorder(ctx, ids[0], 4); err == nil {
		t.Fatal("Reorder out of range succeeded")
	}

	// Changing params resets approval and the last run; a collision is refused.
	if _, err := s.RunCheck(ctx, ids[0], TriggerAgent); err != nil {
		t.Fatal(err)
	}
	name := "Renamed"
	c, err := s.Update(ctx, ids[0], CheckUpdate{Name: &name, Params: json.RawMessage(`{"model":"z"}`)})
	if err != nil || c.Name != "Renamed" || c.IsChecked || c.LastRunID != "" || string(c.Params) != `{"model":"z"}` {
		t.Fatalf("Update = %+v, %v", c, err)
	}
	if _, err := s.Update(ctx, ids[0], CheckUpdate{Params: json.RawMessage(`{"model":"b"}`)}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("colliding update = %v", err)
	}
	if _, err := s.Update(ctx, ids[0], CheckUpdate{Params: json.RawMessage(`{"columns":["x"]}`)}); err == nil {
		t.Fatal("update dropping the required model succeeded")
	}
	if err := s.Delete(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, ids[1]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete = %v", err)
	}
	if got := order(); got != "czd" {
		t.Fatalf("after delete = %s", got)
	}
}

func TestCancelRun(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	id := mustCreate(t, s, CreateInput{Type: TypeRowCountDiff, Params: json.RawMessage(`{"select":"block"}`)}).CheckID
	done := make(chan Run)
	go func() {
		r, err := s.RunCheck(ctx, id, TriggerAgent)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	var runID string
	for runID == "" {
		for _, r := range s.Runs(id) {
			if r.Status == StatusRunning {
				runID = r.ID
			}
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := s.CancelRun(ctx, runID); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.Status != StatusCancelled {
		t.Fatalf("status = %s", r.Status)
	}
	if c, _ := s.Get(id); c.IsChecked {
		t.Fatal("cancelled agent run approved the check")
	}
	if _, err := s.CancelRun(ctx, runID); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("second cancel = %v", err)
	}
	// Cancelling the caller's context cancels the run too.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	r, err := s.RunCheck(cctx, id, TriggerUser)
	if err != nil || r.Status != StatusCancelled {
		t.Fatalf("run with cancelled ctx = %+v, %v", r, err)
	}
}

// TestConcurrentStore hammers one Store from many goroutines; every create, run and approval
// must be visible at the end (run with -race).
func TestConcurrentStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := NewStateFile(dir + "/state.json")
	s := NewStore(Config{Runner: fakeRunner(), File: file, AutoSave: true}, nil)
	const workers, perWorker = 16, 12
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				params := json.RawMessage(fmt.Sprintf(`{"model":"m%d_%d","primary_key":"id"}`, w, i))
				res, err := s.Create(ctx, CreateInput{Type: TypeValueDiff, Params: params})
				if err != nil {
					t.Error(err)
					return
				}
				// A duplicate create from a "second agent" must return the same id.
				dup, err := s.Create(ctx, CreateInput{Type: TypeValueDiff, Params: params, Name: fmt.Sprintf("n%d_%d", w, i)})
				if err != nil || dup.CheckID != res.CheckID {
					t.Errorf("duplicate create = %+v, %v", dup, err)
					return
				}
				if _, err := s.RunCheck(ctx, res.CheckID, TriggerUser); err != nil {
					t.Error(err)
				}
				if i%2 == 0 {
					if _, err := s.Approve(ctx, res.CheckID); err != nil {
						t.Error(err)
					}
				}
				_ = s.List(time.Now())
			}
		})
	}
	wg.Wait()
	check := func(st *State, where string) {
		if len(st.Checks) != workers*perWorker || len(st.Runs) != workers*perWorker {
			t.Fatalf("%s: %d checks %d runs, want %d each", where, len(st.Checks), len(st.Runs), workers*perWorker)
		}
		approved := 0
		for _, c := range st.Checks {
			if c.IsChecked {
				approved++
			}
			if c.LastRunID == "" || c.Name[0] != 'n' {
				t.Fatalf("%s: check lost an update: %+v", where, c)
			}
		}
		if approved != workers*perWorker/2 {
			t.Fatalf("%s: approved = %d, want %d", where, approved, workers*perWorker/2)
		}
	}
	check(s.State(), "memory")
	onDisk, err := file.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	check(onDisk, "disk")
}

func TestApprovalSurvivesFailedAgentRerun(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	id := mustCreate(t, s, CreateInput{Type: TypeRowCountDiff, Params: json.RawMessage(`{"select":"fail"}`)}).CheckID
	if _, err := s.Approve(ctx, id); err != nil {
		t.Fatal(err)
	}
	r, err := s.RunCheck(ctx, id, TriggerAgent)
	if err != nil || r.Status != StatusFailed {
		t.Fatalf("run = %+v, %v", r, err)
	}
	if c, _ := s.Get(id); !c.IsChecked || c.LastRunID != r.ID {
		t.Fatalf("check after failed agent run = %+v", c)
	}
}

func TestInterruptedRunsAreMarkedFailed(t *testing.T) {
	st := NewState()
	st.Runs = append(st.Runs, Run{ID: "r", Type: TypeQuery, Params: json.RawMessage(`{}`), Status: StatusRunning})
	s := NewStore(Config{}, st)
	r, err := s.GetRun("r")
	if err != nil || r.Status != StatusFailed || !strings.Contains(r.Error, "interrupted") {
		t.Fatalf("run = %+v, %v", r, err)
	}
	if st.Runs[0].Status != StatusRunning {
		t.Fatal("NewStore modified its input")
	}
}
