package main

import (
	"strings"
	"testing"

	_ "github.com/ripple-data/ripple/internal/golden"
)

func TestSummarize(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"p/a"}`,
		`{"Action":"run","Package":"p/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"p/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"pass","Package":"p/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"p/a","Test":"TestPG","Output":"=== RUN   TestPG\n"}`,
		`{"Action":"output","Package":"p/a","Test":"TestPG","Output":"    pg_test.go:12: RIPPLE_TEST_POSTGRES_DSN not set\n"}`,
		`{"Action":"output","Package":"p/a","Test":"TestPG","Output":"--- SKIP: TestPG (0.00s)\n"}`,
		`{"Action":"skip","Package":"p/a","Test":"TestPG"}`,
		`{"Action":"output","Package":"p/a","Test":"TestQuiet","Output":"--- SKIP: TestQuiet (0.00s)\n"}`,
		`{"Action":"skip","Package":"p/a","Test":"TestQuiet"}`,
		`{"Action":"output","Package":"p/a","Test":"TestBad","Output":"    bad_test.go:3: want 2, got 1\n"}`,
		`{"Action":"output","Package":"p/a","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}`,
		`{"Action":"fail","Package":"p/a","Test":"TestBad"}`,
		`{"Action":"output","Package":"p/a","Output":"PASS\n"}`,
		`{"Action":"output","Package":"p/a","Output":"FAIL\tp/a\t0.01s\n"}`,
		`{"Action":"build-output","ImportPath":"p/b","Output":"b.go:1: syntax error\n"}`,
		`# p/c`,
	}, "\n")
	var out strings.Builder
	rep, err := summarize(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	wantOut := "    bad_test.go:3: want 2, got 1\n--- FAIL: TestBad (0.00s)\nFAIL\tp/a\t0.01s\nb.go:1: syntax error\n# p/c\n"
	if out.String() != wantOut {
		t.Errorf("output:\n%q\nwant\n%q", out.String(), wantOut)
	}
	if len(rep.Skips) != 2 || len(rep.Silent()) != 1 || len(rep.Failed) != 1 {
		t.Fatalf("report %+v", rep)
	}
	wantSum := "skipped tests: 2 (1 without a reason)\n" +
		"  p/a TestPG: RIPPLE_TEST_POSTGRES_DSN not set\n" +
		"  p/a TestQuiet: SILENT: the test printed no reason\n" +
		"failed tests: 1\n  p/a TestBad\n"
	if got := rep.Summary(); got != wantSum {
		t.Errorf("summary:\n%s\nwant\n%s", got, wantSum)
	}
}
