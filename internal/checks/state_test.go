package checks

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStateRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DefaultStateFile)
	file := NewStateFile(path)
	s := NewStore(Config{Runner: fakeRunner(), File: file, Now: newClock().Now}, nil)
	res := mustCreate(t, s, CreateInput{Type: TypeQueryDiff, Params: json.RawMessage(`{"sql":"select * from {{ ref('orders') }} where a < 3 & b > 1"}`), Run: true, TriggeredBy: TriggerAgent})
	if err := s.SetArtifacts(ctx, Artifacts{Base: map[string]json.RawMessage{"manifest": json.RawMessage(`{"metadata":{"generated_at":"2026-01-01T00:00:00Z"}}`)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetGit(ctx, &GitInfo{Branch: "feature", Commit: "abc123"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPullRequest(ctx, &PullRequest{URL: "https://example.com/pr/7", Number: 7, Title: "Fix"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"version": 1`) || !strings.Contains(string(raw), `a < 3 & b > 1`) {
		t.Fatalf("file lacks version or escapes SQL:\n%s", raw)
	}
	s2, err := OpenStore(context.Background(), Config{File: NewStateFile(path)})
	if err != nil {
		t.Fatal(err)
	}
	st := s2.State()
	if len(st.Checks) != 1 || len(st.Runs) != 1 || st.Checks[0].ID != res.CheckID || !st.Checks[0].IsChecked ||
		st.Checks[0].LastRunID != st.Runs[0].ID || st.Runs[0].TriggeredBy != TriggerAgent {
		t.Fatalf("reloaded state = %+v", st)
	}
	if st.Git.Commit != "abc123" || st.PullRequest.Number != 7 || string(st.Artifacts.Base["manifest"]) == "" {
		t.Fatalf("reloaded context = %+v %+v %+v", st.Git, st.PullRequest, st.Artifacts)
	}
	// A missing file opens as an empty store; a directory means the default name inside it.
	if f := NewStateFile(filepath.Dir(path)); f.Path() != path {
		t.Fatalf("dir path = %s", f.Path())
	}
	if _, err := NewStateFile(path + ".missing").Load(context.Background()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing load = %v", err)
	}
	empty, err := OpenStore(context.Background(), Config{File: NewStateFile(path + ".missing")})
	if err != nil || len(empty.State().Checks) != 0 {
		t.Fatalf("open missing = %v", err)
	}
}

func TestLoadAcceptsRecceSpellings(t *testing.T) {
	st, err := DecodeState([]byte(`{"version":1,"runs":[{"run_id":"r1","type":"query","params":{"sql":"x"},"status":"Finished","triggered_by":"recce_ai","started_at":"2026-01-01T00:00:00Z"}],"checks":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs[0].Status != StatusFinished || st.Runs[0].TriggeredBy != TriggerAgent {
		t.Fatalf("run = %+v", st.Runs[0])
	}
}

func TestCorruptAndNewerFilesAreNeverOverwritten(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		content string
		wantErr error
		wantMsg string
	}{
		{"truncated", `{"version": 1, "runs": [`, ErrCorruptState, "line 1"},
		{"garbage on line 3", "{\n\"version\": 1,\n\"runs\": [}\n", ErrCorruptState, "line 3"},
		{"empty", ``, ErrCorruptState, "file is empty"},
		{"not a state file", `{"hello": "world"}`, ErrCorruptState, `no "version" field`},
		{"wrong version type", `{"version": "1"}`, ErrCorruptState, "cannot unmarshal string"},
		{"newer version with changed field types", `{"version": 3, "runs": {"new": "shape"}}`, ErrNewerVersion, "file version 3"},
		{"duplicate check ids", `{"version":1,"checks":[{"check_id":"a","type":"schema_diff"},{"check_id":"a","type":"schema_diff"}]}`, ErrCorruptState, "duplicate check_id a"},
		{"bad status", `{"version":1,"runs":[{"run_id":"a","type":"query","status":"exploded"}]}`, ErrCorruptState, `unknown run status "exploded"`},
		{"newer version", `{"version": 2, "runs": [], "something_new": {}}`, ErrNewerVersion, "upgrade Ripple"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			file := NewStateFile(path)
			_, err := file.Load(context.Background())
			if !errors.Is(err, c.wantErr) || !strings.Contains(err.Error(), c.wantMsg) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Load error = %v, want %v containing %q and the path", err, c.wantErr, c.wantMsg)
			}
			if _, err := OpenStore(context.Background(), Config{File: file}); !errors.Is(err, c.wantErr) {
				t.Fatalf("OpenStore error = %v", err)
			}
			// A store that did not load the file must not be able to replace it silently.
			s := NewStore(Config{File: file}, nil)
			mustCreate(t, s, CreateInput{Type: TypeSchemaDiff})
			err = s.Save(ctx)
			if !errors.Is(err, ErrUnsafeOverwrite) || !errors.Is(err, c.wantErr) {
				t.Fatalf("Save error = %v, want ErrUnsafeOverwrite wrapping %v", err, c.wantErr)
			}
			if got, _ := os.ReadFile(path); string(got) != c.content {
				t.Fatalf("file changed to %q", got)
			}
			// Forced, it is replaced.
			if err := s.SaveWith(ctx, SaveOptions{Force: true}); err != nil {
				t.Fatal(err)
			}
			if st, err := file.Load(context.Background()); err != nil || len(st.Checks) != 1 {
				t.Fatalf("after forced save: %v", err)
			}
		})
	}
}

func TestSaveRemovesOrphanTempFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	orphan := filepath.Join(dir, ".state.json.tmp-12345")
	other := filepath.Join(dir, ".other.json.tmp-1")
	for _, p := range []string{orphan, other} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := NewStateFile(path).Save(context.Background(), NewState(), SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("orphan temp file still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("another file's temp file was removed: %v", err)
	}
}

func TestSaveMergeKeepsOtherWritersWork(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.json")
	a := NewStore(Config{File: NewStateFile(path)}, nil)
	b := NewStore(Config{File: NewStateFile(path)}, nil)
	mustCreate(t, a, CreateInput{Type: TypeSchemaDiff})
	if err := a.Save(ctx); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, b, CreateInput{Type: TypeLineageDiff})
	if err := b.SaveWith(ctx, SaveOptions{Merge: true}); err != nil {
		t.Fatal(err)
	}
	st, err := NewStateFile(path).Load(context.Background())
	if err != nil || len(st.Checks) != 2 {
		t.Fatalf("merged save has %d checks, %v", len(st.Checks), err)
	}
}

func TestMergePrecedence(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	chk := func(id, name string, updated int, preset bool, params string) Check {
		return Check{ID: id, Name: name, Type: TypeProfileDiff, Params: json.RawMessage(params), CreatedAt: at(0), UpdatedAt: at(updated), IsPreset: preset}
	}
	run := func(id string, started int) Run {
		return Run{ID: id, Type: TypeQuery, Params: json.RawMessage(`{}`), Status: StatusFinished, StartedAt: at(started)}
	}
	dst := &State{
		Version: 1,
		Checks: []Check{
			chk("c1", "local newer", 10, false, `{"model":"a"}`),
			chk("c2", "local older", 1, false, `{"model":"b"}`),
			chk("p-local", "preset local older", 1, true, `{"model":"p"}`),
			chk("c4", "local tie", 5, false, `{"model":"d"}`),
		},
		Runs: []Run{run("r1", 1), run("r3", 3)},
		Artifacts: Artifacts{Base: map[string]json.RawMessage{
			"manifest": json.RawMessage(`{"metadata":{"generated_at":"2026-01-02T00:00:00Z"},"v":"local"}`),
			"catalog":  json.RawMessage(`{"metadata":{"generated_at":"2026-01-01T00:00:00Z"},"v":"local"}`),
		}},
	}
	src := &State{
		Version: 1,
		Checks: []Check{
			chk("c1", "remote older", 2, false, `{"model":"a"}`),
			chk("c2", "remote newer", 9, false, `{"model":"b"}`),
			chk("p-remote", "preset remote newer", 9, true, `{"model":"p"}`),
			chk("c4", "remote tie", 5, false, `{"model":"d"}`),
			chk("c5", "remote only", 1, false, `{"model":"e"}`),
		},
		Runs: []Run{run("r2", 2), run("r3", 3), run("r0", 0)},
		Artifacts: Artifacts{
			Base: map[string]json.RawMessage{
				"manifest": json.RawMessage(`{"metadata":{"generated_at":"2026-01-01T00:00:00Z"},"v":"remote"}`),
				"catalog":  json.RawMessage(`{"metadata":{"generated_at":"2026-01-03T00:00:00Z"},"v":"remote"}`),
			},
			Current: map[string]json.RawMessage{"manifest": json.RawMessage(`{"v":"remote"}`)},
		},
		Git: &GitInfo{Branch: "remote"},
	}
	stats := Merge(dst, src)
	if stats != (MergeStats{ChecksAdded: 1, ChecksUpdated: 2, RunsAdded: 2}) {
		t.Fatalf("stats = %+v", stats)
	}
	var names []string
	for _, c := range dst.Checks {
		names = append(names, c.ID+"="+c.Name)
	}
	want := "c1=local newer,c2=remote newer,p-local=preset remote newer,c4=local tie,c5=remote only"
	if got := strings.Join(names, ","); got != want {
		t.Fatalf("checks = %s\nwant     %s", got, want)
	}
	var runs []string
	for _, r := range dst.Runs {
		runs = append(runs, r.ID)
	}
	if got := strings.Join(runs, ","); got != "r0,r1,r2,r3" {
		t.Fatalf("runs = %s", got)
	}
	if !strings.Contains(string(dst.Artifacts.Base["manifest"]), "local") || !strings.Contains(string(dst.Artifacts.Base["catalog"]), "remote") ||
		!strings.Contains(string(dst.Artifacts.Current["manifest"]), "remote") {
		t.Fatalf("artifacts = %s / %s / %s", dst.Artifacts.Base["manifest"], dst.Artifacts.Base["catalog"], dst.Artifacts.Current["manifest"])
	}
	if dst.Git == nil || dst.Git.Branch != "remote" {
		t.Fatalf("git = %+v", dst.Git)
	}
	// Importing through the store validates and merges the same way.
	s := NewStore(Config{}, &State{Version: 1, Checks: []Check{chk("x", "x", 1, false, `{"model":"x"}`)}})
	if st, err := s.Import(context.Background(), src); err != nil || st.ChecksAdded != 5 {
		t.Fatalf("Import = %+v, %v", st, err)
	}
}

// --- Durability: a writer killed at random points never leaves a broken or stale file. ---

const durabilityEnv = "RIPPLE_CHECKS_DURABILITY_CHILD"

// TestDurabilityChild is the child process of TestDurabilityUnderSIGKILL; it does nothing in a
// normal test run. It loads the state file, then creates checks forever, saving after each one
// and acknowledging "ack <name>" on stdout only once the save returned.
func TestDurabilityChild(t *testing.T) {
	path := os.Getenv(durabilityEnv)
	if path == "" {
		t.Skip("helper process for TestDurabilityUnderSIGKILL")
	}
	ctx := context.Background()
	s, err := OpenStore(context.Background(), Config{File: NewStateFile(path)})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	prefix := strconv.Itoa(os.Getpid())
	stop := time.Now().Add(2 * time.Minute) // never outlive a parent that died without killing us
	for i := 0; time.Now().Before(stop); i++ {
		name := fmt.Sprintf("%s-%d", prefix, i)
		if _, err := s.Create(ctx, CreateInput{Type: TypeProfileDiff, Params: json.RawMessage(`{"model":"` + name + `"}`), Name: name}); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		if err := s.Save(ctx); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		fmt.Println("ack", name)
	}
}

func TestDurabilityUnderSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 100 processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), DefaultStateFile)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	acked := map[string]bool{}
	midSave := 0
	start := time.Now()
	const kills = 100
	for k := range kills {
		cmd := exec.Command(exe, "-test.run=^TestDurabilityChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), durabilityEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() }) // no orphan writer if the test fails early
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Kill after a random number of acks (0..10) plus a random delay, so the kill lands
		// anywhere: during startup, mid-encode, between write and rename, after rename.
		wantAcks := rng.IntN(11)
		got := 0
		deadline := time.After(30 * time.Second)
	wait:
		for got < wantAcks {
			select {
			case l, ok := <-lines:
				if !ok {
					break wait
				}
				if name, found := strings.CutPrefix(l, "ack "); found {
					acked[name] = true
					got++
				} else if strings.HasPrefix(l, "error") {
					t.Fatalf("child %d: %s", k, l)
				}
			case <-deadline:
				t.Fatalf("child %d: no progress", k)
			}
		}
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		for l := range lines { // acks printed before the kill landed still count
			if name, found := strings.CutPrefix(l, "ack "); found {
				acked[name] = true
			}
		}
		_ = cmd.Wait()
		if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp-*")); len(m) > 0 {
			midSave++ // the kill landed between creating the temp file and the rename
		}

		st, err := NewStateFile(path).Load(context.Background())
		if errors.Is(err, fs.ErrNotExist) && len(acked) == 0 {
			continue
		}
		if err != nil {
			t.Fatalf("after kill %d: state file does not load: %v", k, err)
		}
		have := make(map[string]bool, len(st.Checks))
		for _, c := range st.Checks {
			have[c.Name] = true
		}
		for name := range acked {
			if !have[name] {
				t.Fatalf("after kill %d: acknowledged check %s missing (file has %d checks, %d acked)", k, name, len(st.Checks), len(acked))
			}
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) > 3 { // state file, lock file, at most one orphan temp from the last kill
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("temp files accumulate: %v", names)
	}
	t.Logf("%d SIGKILLs (%d mid-save), %d acknowledged checks all durable, %v", kills, midSave, len(acked), time.Since(start).Round(time.Millisecond))
}
