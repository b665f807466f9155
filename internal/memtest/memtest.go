// Package memtest measures a test's peak memory in a fresh process, so no
// other test's allocations count: the parent runs one test of its own
// binary as a child, and the child reports what it measured. Only tests
// import it.
package memtest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

const marker = "MEASURE "

// RunChild runs the test named child of this test binary with env added
// and decodes what it passed to Report into measure. It skips without
// /proc/self/status (the peak RSS is read there, Linux only).
func RunChild(t *testing.T, child string, env []string, measure any) {
	t.Helper()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc/self/status (Linux) to read the peak RSS")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if _, s, ok := strings.Cut(line, marker); ok {
			if err := json.Unmarshal([]byte(s), measure); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("the child printed no measure:\n%s", out)
}

// Report is the child's side of RunChild.
func Report(t *testing.T, measure any) {
	t.Helper()
	m, err := json.Marshal(measure)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s%s", marker, m)
}

// StatusKB reads one kB field of /proc/self/status (VmHWM: the peak
// resident set since the process started).
func StatusKB(t *testing.T, field string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("%s not in /proc/self/status", field)
	return 0
}
