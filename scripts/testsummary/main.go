// Command testsummary reads `go test -json` events on stdin and prints what a
// person needs from a long run: each package's result line, the output of
// every failed test, and at the end every skipped test with the reason it
// gave. A skip that gives no reason is a silent skip: the command then exits
// 1, so the suite cannot hide one. Failures are go test's to report (its exit
// status); this command exits 0 otherwise.
//
//	go test -json ./... | go run ./scripts/testsummary [-o summary.txt]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// skip is one skipped test and the reason it printed.
type skip struct {
	Package, Test, Reason string
}

// report is what a run left to say at the end.
type report struct {
	Skips  []skip
	Failed []string
}

// Silent lists the skips that printed no reason.
func (r report) Silent() []skip {
	var out []skip
	for _, s := range r.Skips {
		if s.Reason == "" {
			out = append(out, s)
		}
	}
	return out
}

// Summary is the closing block: the skip count, each skip with its reason,
// and the failed tests.
func (r report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "skipped tests: %d (%d without a reason)\n", len(r.Skips), len(r.Silent()))
	for _, s := range r.Skips {
		reason := s.Reason
		if reason == "" {
			reason = "SILENT: the test printed no reason"
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", s.Package, s.Test, reason)
	}
	if len(r.Failed) > 0 {
		fmt.Fprintf(&b, "failed tests: %d\n", len(r.Failed))
		for _, f := range r.Failed {
			fmt.Fprintf(&b, "  %s\n", f)
		}
	}
	return b.String()
}

// summarize copies the lines worth seeing from the event stream to w and
// returns the report. A line that is not JSON (go's own messages) is copied
// as it is.
func summarize(in io.Reader, w io.Writer) (report, error) {
	var rep report
	buf := map[string][]string{} // output of tests still running
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		key := e.Package + " " + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Test == "":
			// Package level: "ok", "FAIL", "no test files", panics
			// outside a test. The bare PASS line says nothing new.
			if e.Action == "output" && e.Output != "PASS\n" {
				fmt.Fprint(w, e.Output)
			}
		case e.Action == "output":
			buf[key] = append(buf[key], e.Output)
		case e.Action == "fail":
			fmt.Fprint(w, strings.Join(buf[key], ""))
			rep.Failed = append(rep.Failed, e.Package+" "+e.Test)
			delete(buf, key)
		case e.Action == "skip":
			rep.Skips = append(rep.Skips, skip{Package: e.Package, Test: e.Test, Reason: reason(buf[key])})
			delete(buf, key)
		case e.Action == "pass":
			delete(buf, key)
		}
	}
	sort.Slice(rep.Skips, func(i, j int) bool {
		a, b := rep.Skips[i], rep.Skips[j]
		return a.Package+" "+a.Test < b.Package+" "+b.Test
	})
	return rep, sc.Err()
}

// reason is what a skipped test printed, without the framework's own
// "=== RUN" / "--- SKIP" lines and the file:line prefix of t.Skip.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		if file, rest, ok := strings.Cut(t, ": "); ok && strings.Contains(file, ".go:") && !strings.Contains(file, " ") {
			t = rest
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " / ")
}

func main() {
	out := flag.String("o", "", "also write the closing summary to this file")
	flag.Parse()
	rep, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: reading go test -json: %v\n", err)
		os.Exit(1)
	}
	sum := rep.Summary()
	fmt.Print("\n" + sum)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(sum), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
			os.Exit(1)
		}
	}
	if n := len(rep.Silent()); n > 0 {
		fmt.Fprintf(os.Stderr, "testsummary: %d test(s) skipped without saying why: make each t.Skip name its reason\n", n)
		os.Exit(1)
	}
}
