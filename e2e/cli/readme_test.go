package cli_test

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The README tells the truth: its "Using it on your project" recipe runs as
// written, the read commands leave the project alone, the demo prints
// commands that run.

// copyProject copies the demo project (its dbt files, profiles.yml and the
// two builds' artifacts) into a new directory, without the DuckDB file:
// the demo's profiles.yml names that file by its absolute path, so the
// copy queries the same warehouse, read-only.
func copyProject(t *testing.T) string {
	t.Helper()
	needSuite(t)
	dst := filepath.Join(t.TempDir(), "project")
	err := filepath.WalkDir(suite.demoDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(suite.demoDir, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case strings.HasSuffix(d.Name(), ".duckdb") || strings.HasSuffix(d.Name(), ".wal"):
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copying the demo project: %v", err)
	}
	return dst
}

// recipeBlocks returns the lines of the ```sh blocks marked <!-- recipe
// in the README section titled section (up to the next "## " heading).
func recipeBlocks(t *testing.T, readme, section string) [][]string {
	t.Helper()
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "## "+section {
			start = i + 1
			break
		}
	}
	if start < 0 {
		t.Fatalf("%s has no section %q", readme, section)
	}
	var blocks [][]string
	for i := start; i < len(lines) && !strings.HasPrefix(lines[i], "## "); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "<!-- recipe") {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j >= len(lines) || strings.TrimSpace(lines[j]) != "```sh" {
			t.Fatalf("%s line %d: a <!-- recipe --> marker must be followed by a ```sh block", readme, i+1)
		}
		var block []string
		for j++; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			block = append(block, lines[j])
		}
		blocks = append(blocks, block)
		i = j
	}
	return blocks
}

// TestReadmeRecipe runs the README's "Using it on your project" recipe
// verbatim on a copy of the demo project. Only two things are substituted,
// because they cannot run here:
//   - the project location: the `cd` line goes to the copy instead;
//   - the build steps: `dbt ...` lines (and the `git switch` between the
//     branches) are skipped; the demo project comes already built — base
//     and current in two schemas of one DuckDB file, their artifacts in
//     target-base/ and target/, profiles.yml in the project dir.
//
// The `ripple` the recipe calls is the binary TestMain built from this
// checkout, put on the PATH as `ripple` (what `go install` does). Every
// `ripple` line runs with sh in the project dir, in order, as one review,
// and must exit with the code and print the words listed below; a line
// this test does not know fails it, so the README cannot grow an untested
// step.
func TestReadmeRecipe(t *testing.T) {
	t.Parallel()
	needSuite(t)
	project := copyProject(t)
	bin := t.TempDir()
	if err := os.Symlink(suite.bin, filepath.Join(bin, "ripple")); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}

	// The same answers as the explicit flags the other tests use: the
	// recipe finds the project, the artifacts and the warehouse
	// (profiles.yml) by itself.
	explicit := func(args ...string) string {
		r := execRipple(t, append([]string{"--project-dir", suite.demoDir}, args...)...)
		if r.code != 0 {
			t.Fatalf("%s", r)
		}
		return string(r.stdout)
	}
	file := func(name string, words ...string) func(t *testing.T, r result) {
		return func(t *testing.T, r result) {
			data, err := os.ReadFile(filepath.Join(project, name))
			if err != nil {
				t.Fatalf("%s was not written: %v", name, err)
			}
			for _, w := range words {
				if !strings.Contains(string(data), w) {
					t.Errorf("%s lacks %q:\n%s", name, w, clip(data))
				}
			}
		}
	}
	type expect struct {
		code  int
		words []string                     // on stdout
		same  []string                     // stdout equals `ripple --project-dir DEMO <same...>`
		check func(t *testing.T, r result) // more
	}
	want := map[string]expect{
		"ripple check-base": {code: 0, words: []string{
			"fresh: the base artifacts were generated ", " ago, within the age limit of 2 days; no git history of main to compare with"}},
		"ripple lineage-diff": {code: 0, same: []string{"lineage-diff"},
			words: []string{"customers", "customer_segments", "customer_orders_legacy"}},
		"ripple impact-analysis": {code: 0, same: []string{"impact-analysis"},
			words: []string{"Impact analysis", "customers", "customer_segments"}},
		"ripple summary > pr-comment.md": {code: 0, check: func(t *testing.T, r result) {
			if len(r.stdout) != 0 {
				t.Errorf("stdout went to the terminal, not the file:\n%s", r)
			}
			file("pr-comment.md", "# Ripple summary", "```mermaid", "customers")(t, r)
		}},
		// The demo's default presets find differences (customer_segments
		// added, customer_orders_legacy removed), so run exits 1 — and
		// writes what the README says it writes.
		"ripple run --summary ripple-summary.md": {code: 1, words: []string{"0 passed, 2 mismatched, 0 failed"},
			check: func(t *testing.T, r result) {
				file("ripple-summary.md", "# Ripple summary")(t, r)
				file("ripple.yml")(t, r)
				file("ripple_state.json", `"row_count_diff"`, `"schema_diff"`)(t, r)
			}},
	}

	readme := filepath.Join("..", "..", "README.md")
	blocks := recipeBlocks(t, readme, "Using it on your project")
	if len(blocks) != 2 {
		t.Fatalf("%d recipe blocks in README's \"Using it on your project\", want 2 (the recipe and In CI)", len(blocks))
	}
	used := map[string]bool{}
	var skipped []string
	ran, cds := 0, 0
	for _, block := range blocks {
		for _, line := range block {
			line = strings.TrimSpace(line)
			cmd := line
			if i := strings.Index(cmd, " #"); i >= 0 {
				cmd = strings.TrimSpace(cmd[:i])
			}
			switch {
			case cmd == "" || strings.HasPrefix(cmd, "#"):
			case strings.HasPrefix(cmd, "cd "):
				// The project location: the only substitution of a line.
				cds++
				if ran > 0 || len(skipped) > 0 {
					t.Errorf("the recipe's %q comes after other commands; it must come first", line)
				}
			case strings.HasPrefix(cmd, "dbt ") || strings.HasPrefix(cmd, "git "):
				skipped = append(skipped, cmd)
			case strings.HasPrefix(cmd, "ripple "):
				w, ok := want[cmd]
				if !ok {
					t.Errorf("the README's recipe runs %q, which this test does not know: add its exit code and key words", cmd)
					continue
				}
				used[cmd] = true
				ran++
				r := runIn(t, project, env, "sh", "-c", line)
				if r.code != w.code {
					t.Errorf("%q: exit %d, want %d\n%s", line, r.code, w.code, r)
					continue
				}
				for _, word := range w.words {
					if !bytes.Contains(r.stdout, []byte(word)) {
						t.Errorf("%q: stdout lacks %q\n%s", line, word, r)
					}
				}
				if w.same != nil {
					if e := explicit(w.same...); string(r.stdout) != e {
						t.Errorf("%q in the project dir and `ripple --project-dir DEMO %s` differ:\n%s\n---\n%s",
							line, strings.Join(w.same, " "), clip(r.stdout), clip([]byte(e)))
					}
				}
				if w.check != nil {
					w.check(t, r)
				}
			default:
				t.Errorf("the README's recipe has %q, which is neither a ripple, dbt or git line nor the cd into the project: teach TestReadmeRecipe to run it", line)
			}
		}
	}
	if cds != 1 {
		t.Errorf("the recipe has %d `cd` lines into the project, want 1", cds)
	}
	for cmd := range want {
		if !used[cmd] {
			t.Errorf("the README's recipe no longer runs %q: remove it from this test", cmd)
		}
	}
	wantSkipped := []string{
		"git switch main", "dbt run --target prod", "dbt docs generate --target prod --target-path target-base",
		"git switch my-branch", "dbt run", "dbt docs generate",
	}
	if !reflect.DeepEqual(skipped, wantSkipped) {
		t.Errorf("build steps skipped %q, want %q: the demo's artifacts stand for exactly these", skipped, wantSkipped)
	}
}

// fileState is what a file looks like to TestReadCommandsWriteNothing.
type fileState struct {
	size    int64
	modTime time.Time
	sum     [32]byte
}

func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = fileState{size: info.Size(), modTime: info.ModTime(), sum: sha256.Sum256(data)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadCommandsWriteNothing: without a checks state, the commands that
// read (lineage, diffs, triage, static analysis, check-base) write no file
// into the project they run in — no state file, no lock file, no cache.
func TestReadCommandsWriteNothing(t *testing.T) {
	t.Parallel()
	project := copyProject(t)
	before := snapshot(t, project)
	for _, args := range [][]string{
		{"lineage-diff"}, {"impact-analysis"}, {"summary"}, {"check-base"}, {"render-lineage-mermaid"},
		{"row-count-diff"}, {"schema-diff"}, {"value-diff", "--model", "orders", "--primary-key", "order_id"},
		{"profile-diff", "--model", "customers"}, {"query", "--sql-template", "select 1 as x"},
		{"get-cll", "--node-id", "orders"}, {"list-checks"}, {"project-summary"}, {"test-gaps"},
		{"impact-analysis", "--json"},
	} {
		// The project dir and the warehouse come from the working
		// directory and its profiles.yml, as in the README's recipe.
		r := runIn(t, project, nil, append([]string{suite.bin}, args...)...)
		if r.code != 0 || len(bytes.TrimSpace(r.stdout)) == 0 {
			t.Errorf("exit %d, want 0 and an answer:\n%s", r.code, r)
		}
		after := snapshot(t, project)
		if !reflect.DeepEqual(after, before) {
			for name, st := range after {
				if old, ok := before[name]; !ok {
					t.Errorf("ripple %s wrote %s into the project", strings.Join(args, " "), name)
				} else if old != st {
					t.Errorf("ripple %s changed %s in the project", strings.Join(args, " "), name)
				}
			}
			for name := range before {
				if _, ok := after[name]; !ok {
					t.Errorf("ripple %s removed %s from the project", strings.Join(args, " "), name)
				}
			}
			before = after
		}
	}
}

// TestDemoPrintsRunnableCommands: the demo's "Explore it" lines run as
// printed. The suite's binary is not on the PATH, so they start with its
// path (under `go run` they would say `go run ./cmd/ripple`, after
// `go install` just `ripple`: internal/cli TestRunnableCommand).
func TestDemoPrintsRunnableCommands(t *testing.T) {
	t.Parallel()
	needSuite(t)
	out := string(suite.demo[0])
	i := strings.Index(out, "\nExplore it (")
	if i < 0 {
		t.Fatalf("the demo prints no \"Explore it\" commands:\n%s", out)
	}
	var cmds [][]string
	for _, line := range strings.Split(out[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		cmds = append(cmds, strings.Fields(line))
	}
	if len(cmds) != 5 {
		t.Fatalf("%d commands under \"Explore it\", want 5:\n%s", len(cmds), out[i:])
	}
	if !strings.Contains(out, "\n  "+suite.bin+" --project-dir ../demo --duckdb ../demo/jaffle_shop.duckdb serve ") ||
		!strings.Contains(out, "or run `"+suite.bin+" demo --serve`") {
		t.Errorf("the serve hint does not name the binary that ran:\n%s", out[i:])
	}
	for _, argv := range cmds {
		if argv[0] != suite.bin {
			t.Errorf("%q does not start with the binary that ran (%s), which is not on the PATH", strings.Join(argv, " "), suite.bin)
			continue
		}
		r := runIn(t, suite.work, nil, argv...)
		if r.code != 0 || len(bytes.TrimSpace(r.stdout)) == 0 {
			t.Errorf("the demo's %q: exit %d\n%s", strings.Join(argv, " "), r.code, r)
		}
	}
}
