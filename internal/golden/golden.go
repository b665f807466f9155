// Package golden compares test output with files under testdata/ and
// rewrites them when a test binary runs with -update.
//
// The -update flag is defined here, once, and every package with tests links
// this package (a blank import where it has no golden files), so that
// `go test ./... -update` is accepted by every test binary instead of failing
// with "flag provided but not defined" in packages without golden files.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is the test binary's -update flag. It is written only by flag
// parsing in testing's start-up, before any test runs.
var update = flag.Bool("update", false, "rewrite golden files under testdata/ from the current output")

// Update reports whether the test binary runs with -update (for tests that
// write generated files other than through Assert).
func Update() bool { return *update }

// maxShown caps how much of a mismatching output a failure prints.
const maxShown = 4000

// Assert checks that got equals the file at path, or rewrites the file
// when the test binary runs with -update.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the package's tests with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file: check the change, then rerun with -update\n--- got ---\n%s\n--- want ---\n%s",
			path, cut(got), cut(want))
	}
}

// AssertJSON checks v, as indented JSON ending in a newline, against path.
func AssertJSON(t testing.TB, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	Assert(t, path, append(got, '\n'))
}

func cut(b []byte) string {
	if len(b) > maxShown {
		return string(b[:maxShown]) + "\n…"
	}
	return string(b)
}
