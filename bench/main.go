// Command bench measures Ripple at scale, as a user runs it: whole
// processes of the ripple binary on generated 2,000 / 5,000 / 10,000-model
// projects (issue #31). Every figure is printed next to the JSON floor — a
// bare encoding/json decode of the same four artifact files into `any` —
// measured in the same run, and, with -baseline, next to the same command
// run by another ripple binary (the previous commit), interleaved so that
// both see the same machine load.
//
//	go run ./bench                                  # 2,000, 5,000 and 10,000 models
//	go run ./bench -sizes 200 -runs 1               # a smoke run
//	go run ./bench -baseline /tmp/ripple-previous   # ratios to another build
//
// Wall time stretches with other load on a shared machine; CPU time (user +
// system, of the child process) much less: read the cpu ratios there.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/cputime"
	"github.com/ripple-data/ripple/internal/synth"
)

func main() {
	sizes := flag.String("sizes", "2000,5000,10000", "comma-separated model counts")
	runs := flag.Int("runs", 3, "runs per command (the median is reported)")
	ripple := flag.String("ripple", "", "ripple binary to measure (default: build ./cmd/ripple)")
	baseline := flag.String("baseline", "", "another ripple binary (e.g. the previous commit's) to compare with")
	changed := flag.Float64("changed", 0.006, "share of the last 14% of models (the marts) whose SQL the PR changes")
	mcpCalls := flag.Int("mcp-calls", 20, "warm MCP metadata calls per size")
	impact := flag.Bool("impact", true, "measure impact_analysis (builds a DuckDB warehouse per size)")
	keep := flag.String("dir", "", "where to write the projects (default: a temporary directory, removed at the end)")
	genDir := flag.String("generate", "", "internal: write a project of -models models here and print its shape as JSON")
	models := flag.Int("models", 0, "internal: with -generate")
	warehouse := flag.String("warehouse", "", "internal: with -generate, also build this DuckDB warehouse")
	floorDir := flag.String("floor", "", "internal: decode this project's artifacts into `any` and print wall and CPU nanoseconds")
	flag.Parse()
	if *genDir != "" {
		if err := generate(context.Background(), *genDir, *models, *changed, *warehouse); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *floorDir != "" {
		s, err := jsonFloor(*floorDir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		fmt.Println(int64(s.wall), int64(s.cpu))
		return
	}
	if err := run(context.Background(), config{
		sizes: *sizes, runs: *runs, ripple: *ripple, baseline: *baseline, changed: *changed,
		mcpCalls: *mcpCalls, impact: *impact, dir: *keep,
	}); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type config struct {
	sizes, ripple, baseline, dir string
	runs, mcpCalls               int
	changed                      float64
	impact                       bool
}

func run(ctx context.Context, c config) error {
	dir := c.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "ripple-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	bin := c.ripple
	if bin == "" {
		bin = filepath.Join(dir, "ripple")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/ripple")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building ./cmd/ripple (run from the repository root, or pass -ripple): %w", err)
		}
	}
	bins := []string{bin}
	if c.baseline != "" {
		bins = append(bins, c.baseline)
	}
	for _, s := range strings.Split(c.sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 10 {
			return fmt.Errorf("size %q: want a model count of at least 10", s)
		}
		if err := measureSize(ctx, c, bins, filepath.Join(dir, fmt.Sprintf("p%d", n)), n); err != nil {
			return fmt.Errorf("%d models: %w", n, err)
		}
	}
	return nil
}

// sample is one measured process (or in-process step).
type sample struct {
	wall, cpu time.Duration
	rssKB     int64
	out       []byte
}

func measureSize(ctx context.Context, c config, bins []string, dir string, n int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	db := ""
	if c.impact {
		db = filepath.Join(dir, "warehouse.duckdb")
	}
	// Generated in a child process, for the same reason as floorProcess.
	gen, err := process(ctx, self, []string{"-generate", dir, "-models", strconv.Itoa(n), "-changed", fmt.Sprint(c.changed), "-warehouse", db})
	if err != nil {
		return err
	}
	var info struct {
		Models, Columns, Changed, Bytes int
		IDs                             []string
	}
	if err := json.Unmarshal(gen.out, &info); err != nil {
		return fmt.Errorf("generator output: %w", err)
	}
	fmt.Printf("\n== %d models, %d columns, %d changed, artifacts %.1f MB\n", info.Models, info.Columns, info.Changed, float64(info.Bytes)/1e6)
	project := []string{"--project-dir", dir, "--json"}
	type command struct {
		name string
		args []string
		skip bool
	}
	commands := []command{
		{"version", []string{"--version"}, false},
		{"lineage-diff", append([]string{"lineage-diff"}, project...), false},
		{"column lineage (list-opaque)", append([]string{"list-opaque"}, project...), false},
		{"impact-analysis cold", append([]string{"impact-analysis", "--duckdb", db}, project...), !c.impact},
	}
	floor := make([]sample, 0, c.runs)
	results := make([][][]sample, len(commands)) // command × binary × run
	for i := range results {
		results[i] = make([][]sample, len(bins))
	}
	// Interleave: each round runs the floor and every command with every
	// binary once, so that load changes hit all of them alike.
	for range c.runs {
		s, err := floorProcess(ctx, dir)
		if err != nil {
			return err
		}
		floor = append(floor, s)
		for ci, cmd := range commands {
			if cmd.skip {
				continue
			}
			for bi, bin := range bins {
				s, err := process(ctx, bin, cmd.args)
				if err != nil {
					return fmt.Errorf("%s: %w", cmd.name, err)
				}
				results[ci][bi] = append(results[ci][bi], s)
			}
		}
	}
	f := median(floor)
	fmt.Printf("%-30s %9s %9s %10s %10s %9s\n", "", "wall", "cpu", "wall/floor", "cpu/floor", "peak RSS")
	fmt.Printf("%-30s %9s %9s\n", "JSON floor (in process)", ms(f.wall), ms(f.cpu))
	for ci, cmd := range commands {
		if cmd.skip {
			continue
		}
		m := median(results[ci][0])
		fmt.Printf("%-30s %9s %9s %9.2fx %9.2fx %7.0f MB", cmd.name, ms(m.wall), ms(m.cpu),
			ratio(m.wall, f.wall), ratio(m.cpu, f.cpu), float64(m.rssKB)/1024)
		if len(bins) > 1 {
			b := median(results[ci][1])
			fmt.Printf("   vs baseline: wall %.2fx cpu %.2fx RSS %.2fx", ratio(m.wall, b.wall), ratio(m.cpu, b.cpu), float64(m.rssKB)/float64(max(b.rssKB, 1)))
		}
		fmt.Println()
		if strings.HasPrefix(cmd.name, "impact-analysis") {
			compact := &bytes.Buffer{}
			if err := json.Compact(compact, m.out); err == nil {
				fmt.Printf("%-30s %d bytes (compact JSON)\n", "  impact answer", compact.Len())
			}
		}
		if cmd.name == "lineage-diff" {
			var ld struct {
				Changed  int `json:"changed_count"`
				Impacted int `json:"impacted_count"`
			}
			if json.Unmarshal(m.out, &ld) == nil {
				fmt.Printf("%-30s %d changed, %d impacted\n", "  the PR", ld.Changed, ld.Impacted)
			}
		}
	}
	for bi, bin := range bins {
		p50, err := mcpWarm(ctx, bin, dir, info.IDs, c.mcpCalls)
		if err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
		label := "MCP warm get_model p50"
		if bi > 0 {
			label = "  baseline"
		}
		fmt.Printf("%-30s %9s\n", label, ms(p50))
	}
	return nil
}

// generate writes the project (and its warehouse) and prints its shape.
func generate(ctx context.Context, dir string, n int, changed float64, warehouse string) error {
	p := synth.Generate(synth.Options{Models: n, Columns: 4, Seed: 31, Changed: changed, ChangedTail: 0.14, LongNames: true})
	if err := p.Write(dir); err != nil {
		return err
	}
	if warehouse != "" {
		if err := p.BuildDuckDB(ctx, warehouse); err != nil {
			return fmt.Errorf("building the warehouse: %w", err)
		}
	}
	info := map[string]any{"Models": n, "Changed": len(p.ChangedIDs), "IDs": p.ModelIDs}
	cols, size := 0, 0
	for _, r := range p.Relations {
		cols += len(r.Columns)
	}
	for _, b := range [][]byte{p.BaseManifest, p.CurrentManifest, p.BaseCatalog, p.CurrentCatalog} {
		size += len(b)
	}
	info["Columns"], info["Bytes"] = cols, size
	return json.NewEncoder(os.Stdout).Encode(info)
}

// floorProcess measures the floor in a child process (this program run with
// -floor), so that its memory does not raise this process's high-water mark,
// which Linux passes on to the children it starts and would count in their
// peak RSS.
func floorProcess(ctx context.Context, dir string) (sample, error) {
	self, err := os.Executable()
	if err != nil {
		return sample{}, err
	}
	s, err := process(ctx, self, []string{"-floor", dir})
	if err != nil {
		return sample{}, err
	}
	var wall, cpu int64
	if _, err := fmt.Sscan(string(s.out), &wall, &cpu); err != nil {
		return sample{}, fmt.Errorf("floor output %q: %w", s.out, err)
	}
	s.wall, s.cpu = time.Duration(wall), time.Duration(cpu)
	return s, nil
}

// jsonFloor decodes the four artifact files into `any`, one after the other.
func jsonFloor(dir string) (sample, error) {
	start, cpu := time.Now(), cputime.Now()
	for _, f := range []string{"target/manifest.json", "target/catalog.json", "target-base/manifest.json", "target-base/catalog.json"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return sample{}, err
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return sample{}, err
		}
	}
	return sample{wall: time.Since(start), cpu: cputime.Now() - cpu}, nil
}

// process runs one ripple command: wall time, the child's CPU time and its
// peak RSS.
func process(ctx context.Context, bin string, args []string) (sample, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s %s: %w: %s", bin, strings.Join(args, " "), err, errOut.String())
	}
	st := cmd.ProcessState
	var rss int64
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	return sample{wall: wall, cpu: st.UserTime() + st.SystemTime(), rssKB: rss, out: out.Bytes()}, nil
}

// mcpWarm starts `ripple mcp` on the project, makes one call to load it,
// then times get_model on distinct models and returns the median.
func mcpWarm(ctx context.Context, bin, dir string, ids []string, calls int) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, bin, "mcp", "--project-dir", dir)
	cmd.Stderr = io.Discard
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ripple-bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return 0, err
	}
	defer cs.Close()
	call := func(id string) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_model", Arguments: map[string]any{"model_id": id}})
		if err == nil && res.IsError {
			err = fmt.Errorf("get_model %s failed", id)
		}
		return err
	}
	if err := call(ids[0]); err != nil {
		return 0, err
	}
	var times []time.Duration
	for i := 1; i <= calls; i++ {
		start := time.Now()
		if err := call(ids[i*7%len(ids)]); err != nil {
			return 0, err
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}

func median(s []sample) sample {
	if len(s) == 0 {
		return sample{}
	}
	walls := slices.Clone(s)
	slices.SortFunc(walls, func(a, b sample) int { return int(a.wall - b.wall) })
	m := walls[len(walls)/2]
	cpus := make([]time.Duration, len(s))
	rss := make([]int64, len(s))
	for i, x := range s {
		cpus[i], rss[i] = x.cpu, x.rssKB
	}
	slices.Sort(cpus)
	slices.Sort(rss)
	m.cpu, m.rssKB = cpus[len(cpus)/2], rss[len(rss)/2]
	return m
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
