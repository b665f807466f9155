// Package golden compares test output with files under testdata/ and
// rewrites them when a test binary runs with -update. Each test package
// declares its own -update flag and passes its value in.
package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// maxShown caps how much of a mismatching output a failure prints.
const maxShown = 4000

// Assert checks that got equals the file at path, or rewrites the file
// when update is set.
func Assert(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
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
func AssertJSON(t testing.TB, path string, v any, update bool) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	Assert(t, path, append(got, '\n'), update)
}

func cut(b []byte) string {
	if len(b) > maxShown {
		return string(b[:maxShown]) + "\n…"
	}
	return string(b)
}
