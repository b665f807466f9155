package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// The demo's "Explore it" lines must be runnable as printed.
func TestRunnableCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	installed := write("gopath/bin/ripple")
	other := write("usr/bin/ripple")
	built := write("project/ripple")
	spaced := write("my tools/ripple")
	goRun := write("go-build123/b001/exe/ripple")
	elsewhere := t.TempDir()
	for _, c := range []struct {
		name, exe, onPath, wd, want string
	}{
		{"the ripple on the PATH is this binary", installed, installed, elsewhere, "ripple"},
		{"under go run", goRun, "", filepath.Join(dir, "project"), "go run ./cmd/ripple"},
		{"under go run with another ripple on the PATH", goRun, other, elsewhere, "go run ./cmd/ripple"},
		{"go build -o ripple in the working directory", built, "", filepath.Join(dir, "project"), "./ripple"},
		{"another ripple on the PATH is not this one", built, other, elsewhere, built},
		{"a path a shell would split", spaced, "", elsewhere, "'" + spaced + "'"},
	} {
		if got := runnableCommand(c.exe, c.onPath, c.wd); got != c.want {
			t.Errorf("%s: runnableCommand(%q, %q, %q) = %q, want %q", c.name, c.exe, c.onPath, c.wd, got, c.want)
		}
	}
}
