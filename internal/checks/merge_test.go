package checks

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const writerEnv = "RIPPLE_CHECKS_WRITER_CHILD"

// TestConcurrentWriterChild is a child process of TestNoCheckLostAcrossProcesses; it does nothing
// in a normal run. Half the children are long-lived (one store, like an MCP server, saving after
// every check), half open the file afresh for every check (like a loop of CLI calls).
func TestConcurrentWriterChild(t *testing.T) {
	spec := os.Getenv(writerEnv)
	if spec == "" {
		t.Skip("helper process for TestNoCheckLostAcrossProcesses")
	}
	var path, who string
	var m int
	var fresh bool
	if _, err := fmt.Sscanf(spec, "%s %s %d %t", &path, &who, &m, &fresh); err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	ctx := context.Background()
	open := func() *Store {
		s, err := OpenStore(ctx, Config{File: NewStateFile(path)})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		return s
	}
	s := open()
	for i := range m {
		if fresh {
			s = open()
		}
		name := fmt.Sprintf("%s-%d", who, i)
		res, err := s.Create(ctx, CreateInput{Type: TypeProfileDiff, Params: json.RawMessage(`{"model":"` + name + `"}`), Name: name})
		if err == nil {
			_, err = s.Approve(ctx, res.CheckID)
		}
		if err == nil {
			err = s.Save(ctx)
		}
		if err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		fmt.Println("ack", name)
	}
}

// TestNoCheckLostAcrossProcesses is issue #19 defect 3: N processes × M checks created and
// approved at the same time on one state file; every acknowledged check is in the file at the
// end, approved, exactly once.
func TestNoCheckLostAcrossProcesses(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const n, m = 6, 15
	path := filepath.Join(t.TempDir(), DefaultStateFile)
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range n {
		cmd := exec.Command(exe, "-test.run=^TestConcurrentWriterChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s w%d %d %t", writerEnv, path, w, m, w%2 == 1))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if name, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
					mu.Lock()
					acked[name] = true
					mu.Unlock()
				} else if strings.HasPrefix(sc.Text(), "error") {
					errs <- fmt.Errorf("writer %d: %s", w, sc.Text())
				}
			}
			if err := cmd.Wait(); err != nil {
				errs <- fmt.Errorf("writer %d: %v", w, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st, err := NewStateFile(path).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, c := range st.Checks {
		seen[c.Name]++
		if !c.IsChecked {
			t.Errorf("check %s lost its approval", c.Name)
		}
	}
	for name := range acked {
		if seen[name] != 1 {
			t.Errorf("acknowledged check %s is in the file %d times", name, seen[name])
		}
	}
	if len(acked) != n*m || len(st.Checks) != n*m {
		t.Errorf("%d acknowledged, %d in the file, want %d", len(acked), len(st.Checks), n*m)
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock file left behind: %v", err)
	}
}

// Two stores that opened the same file: each one's changes survive the other's save.
func twoStores(t *testing.T) (a, b *Store, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), DefaultStateFile)
	if err := NewStateFile(path).Save(context.Background(), NewState(), SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	open := func() *Store {
		s, err := OpenStore(context.Background(), Config{File: NewStateFile(path), Runner: fakeRunner(), Now: newClock().Now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return open(), open(), path
}

func load(t *testing.T, path string) *State {
	t.Helper()
	st, err := NewStateFile(path).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestThreeWayMerge(t *testing.T) {
	ctx := context.Background()
	t.Run("deletions and approvals of others survive a stale writer", func(t *testing.T) {
		a, b, path := twoStores(t)
		x := mustCreate(t, a, CreateInput{Type: TypeSchemaDiff}).CheckID
		y := mustCreate(t, a, CreateInput{Type: TypeLineageDiff}).CheckID
		if err := a.Save(ctx); err != nil {
			t.Fatal(err)
		}
		if err := b.SaveWith(ctx, SaveOptions{Merge: true}); err != nil { // b now knows x and y
			t.Fatal(err)
		}
		if err := a.Delete(ctx, x); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Approve(ctx, y); err != nil {
			t.Fatal(err)
		}
		if err := a.Save(ctx); err != nil {
			t.Fatal(err)
		}
		z := mustCreate(t, b, CreateInput{Type: TypeRowCountDiff, Params: json.RawMessage(`{"node_names":["orders"]}`)}).CheckID
		if err := b.Save(ctx); err != nil {
			t.Fatal(err)
		}
		st := load(t, path)
		got := map[string]bool{}
		for _, c := range st.Checks {
			got[c.ID] = c.IsChecked
		}
		if _, ok := got[x]; ok || !got[y] || len(got) != 2 {
			t.Fatalf("file checks = %v; want y approved and z, x deleted (z=%s)", got, z)
		}
		if _, err := b.Get(y); err != nil {
			t.Errorf("b does not see a's check after saving: %v", err)
		}
	})
	t.Run("the same check created twice becomes one, every id a caller got keeps working", func(t *testing.T) {
		a, b, path := twoStores(t)
		ida := mustCreate(t, a, CreateInput{Type: TypeSchemaDiff, Name: "from a"}).CheckID
		idb := mustCreate(t, b, CreateInput{Type: TypeSchemaDiff, Name: "from b"}).CheckID
		for _, s := range []*Store{a, b, a} {
			if err := s.SaveWith(ctx, SaveOptions{Merge: true}); err != nil {
				t.Fatal(err)
			}
		}
		if st := load(t, path); len(st.Checks) != 1 || st.Checks[0].ID != min(ida, idb) {
			t.Fatalf("checks = %+v", st.Checks)
		}
		// Each store's callers hold its own id; both that and the kept id work.
		for s, own := range map[*Store]string{a: ida, b: idb} {
			for _, id := range []string{own, min(ida, idb)} {
				if _, err := s.Approve(ctx, id); err != nil {
					t.Errorf("approve %s: %v", id, err)
				}
			}
		}
	})
	t.Run("both changed: the newer wins; changed here, deleted there: kept", func(t *testing.T) {
		a, b, path := twoStores(t)
		id := mustCreate(t, a, CreateInput{Type: TypeSchemaDiff}).CheckID
		gone := mustCreate(t, a, CreateInput{Type: TypeLineageDiff}).CheckID
		if err := a.Save(ctx); err != nil {
			t.Fatal(err)
		}
		if err := b.SaveWith(ctx, SaveOptions{Merge: true}); err != nil {
			t.Fatal(err)
		}
		nameA, nameB, desc := "a", "b", "edited in b"
		if _, err := a.Update(ctx, id, CheckUpdate{Name: &nameA}); err != nil {
			t.Fatal(err)
		}
		if err := a.Delete(ctx, gone); err != nil {
			t.Fatal(err)
		}
		if err := a.Save(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // b's clock is its own; make its edit the newer
		b.cfg.Now = func() time.Time { return time.Now().Add(time.Hour) }
		if _, err := b.Update(ctx, id, CheckUpdate{Name: &nameB}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Update(ctx, gone, CheckUpdate{Description: &desc}); err != nil {
			t.Fatal(err)
		}
		if err := b.Save(ctx); err != nil {
			t.Fatal(err)
		}
		st := load(t, path)
		names := map[string]string{}
		for _, c := range st.Checks {
			names[c.ID] = c.Name + "/" + c.Description
		}
		if names[id] != "b/" || !strings.HasSuffix(names[gone], desc) {
			t.Fatalf("checks = %v", names)
		}
	})
}

// TestSymlinkedStateFile: a state file reached through a symbolic link is written through (the
// link stays a link), and a symbolic link where the lock file goes is refused, never followed.
func TestSymlinkedStateFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	real := filepath.Join(dir, "real", "state.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real/state.json", link); err != nil {
		t.Fatal(err)
	}
	s := NewStore(Config{File: NewStateFile(link)}, nil)
	mustCreate(t, s, CreateInput{Type: TypeSchemaDiff})
	if err := s.Save(ctx); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, CreateInput{Type: TypeLineageDiff})
	if err := s.Save(ctx); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if st := load(t, real); len(st.Checks) != 2 {
		t.Fatalf("target has %d checks", len(st.Checks))
	}
	entries, _ := os.ReadDir(filepath.Dir(real))
	if len(entries) != 1 {
		t.Errorf("files next to the target: %v (the lock file must not stay)", entries)
	}

	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, real+".lock"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, CreateInput{Type: TypeRowCountDiff, Params: json.RawMessage(`{"node_names":["x"]}`)})
	if err := s.Save(ctx); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("save through a symlinked lock: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Fatalf("the lock link's target was touched: %q", b)
	}
}

// TestRunHistoryBounded is defect 5's run history: a long-lived store keeps at most MaxRuns runs
// (oldest ad-hoc runs dropped first) and every check's last run, in memory and in the file.
func TestRunHistoryBounded(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DefaultStateFile)
	s := NewStore(Config{File: NewStateFile(path), Runner: fakeRunner(), Runs: RunLimits{MaxRuns: 5}}, nil)
	check := mustCreate(t, s, CreateInput{Type: TypeSchemaDiff, Run: true})
	var last Run
	for i := range 20 {
		r, err := s.Execute(ctx, TypeRowCountDiff, json.RawMessage(`{"node_names":["m`+strconv.Itoa(i)+`"]}`), TriggerAgent)
		if err != nil {
			t.Fatal(err)
		}
		last = r
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for name, runs := range map[string][]Run{"memory": s.Runs(""), "file": load(t, path).Runs} {
		if len(runs) != 5 {
			t.Errorf("%s: %d runs, want 5", name, len(runs))
		}
		ids := map[string]bool{}
		for _, r := range runs {
			ids[r.ID] = true
		}
		if !ids[check.Check.LastRunID] || !ids[last.ID] {
			t.Errorf("%s: the check's run or the newest run was dropped", name)
		}
	}
	// By bytes: results of 1 kB under a 3 kB bound keep the newest three.
	big := NewStore(Config{Runner: RunnerFunc(func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`"` + strings.Repeat("x", 1000) + `"`), nil
	}), Runs: RunLimits{MaxRuns: -1, MaxRunBytes: 3200}}, nil)
	for i := range 10 {
		if _, err := big.Execute(ctx, TypeRowCountDiff, json.RawMessage(`{"node_names":["m`+strconv.Itoa(i)+`"]}`), TriggerAgent); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(big.Runs("")); n != 3 {
		t.Errorf("%d runs under the byte bound, want 3", n)
	}
}

// TestSaveWritesOnlyWhatIsNew: saving with nothing new leaves the file alone, and ad-hoc run
// history waits for Flush (or the flush interval) instead of rewriting the file on every call.
func TestSaveWritesOnlyWhatIsNew(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DefaultStateFile)
	s := NewStore(Config{File: NewStateFile(path), Runner: fakeRunner()}, nil)
	mustCreate(t, s, CreateInput{Type: TypeSchemaDiff})
	if err := s.Save(ctx); err != nil {
		t.Fatal(err)
	}
	stat := func() os.FileInfo {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	before := stat()
	if err := s.Save(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(ctx, TypeRowCountDiff, json.RawMessage(`{"node_names":["m"]}`), TriggerAgent); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx); err != nil {
		t.Fatal(err)
	}
	if after := stat(); !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("the file was rewritten for nothing new, or for one ad-hoc run")
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st := load(t, path); len(st.Runs) != 1 {
		t.Fatalf("after Flush the file has %d runs", len(st.Runs))
	}
}
