package static

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadInputFile is issue #19 defect 4: file inputs are regular files in
// the project (or an allowed directory), size-capped; devices, FIFOs and
// the process's own stdin are refused at once.
func TestReadInputFile(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(dir, name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inside := write(root, "observed.csv", "a,b\n")
	far := write(outside, "observed.csv", "a,b\n")
	fifo := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "zero")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	escape := filepath.Join(root, "escape.csv")
	if err := os.Symlink(far, escape); err != nil {
		t.Fatal(err)
	}
	roots := []string{root}
	for _, tc := range []struct {
		path  string
		roots []string
		want  string
	}{
		{inside, roots, ""},
		{"observed.csv", roots, ""}, // relative to the project
		{far, []string{root, outside}, ""},
		{far, roots, "outside the project directory"},
		{escape, roots, "outside the project directory"},
		{"/dev/zero", roots, "outside"},
		{"/dev/zero", nil, "not a regular file"},
		{link, nil, "not a regular file"},
		{fifo, roots, "not a regular file"},
		{"/proc/self/fd/0", nil, ""}, // checked below: never a blocking read
		{filepath.Join(root, "missing.csv"), roots, "no such file"},
		{write(root, "big.csv", strings.Repeat("x", 11)), roots, "more than the 10 bytes"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := readInputFile(tc.path, tc.roots, 10)
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still reading after 5 s", tc.path)
		}
		switch {
		case tc.path == "/proc/self/fd/0":
			if err == nil {
				t.Errorf("%s was read", tc.path)
			}
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
}

// TestReadInputFileRelativeRoot is issue #27 item 10: with a relative
// --project-dir, an absolute path inside the project is accepted (and one
// outside it still refused).
func TestReadInputFileRelativeRoot(t *testing.T) {
	parent := t.TempDir()
	if err := os.MkdirAll(filepath.Join(parent, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(parent, "proj", "observed.csv")
	if err := os.WriteFile(abs, []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(parent, "other.csv")
	if err := os.WriteFile(outside, []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(parent)
	roots := []string{"proj"}
	for _, path := range []string{abs, "observed.csv", filepath.Join(parent, "proj", ".", "observed.csv")} {
		if data, err := readInputFile(path, roots, 10); err != nil || string(data) != "a,b\n" {
			t.Errorf("%s with --project-dir proj: %q, %v", path, data, err)
		}
	}
	if _, err := readInputFile(outside, roots, 10); err == nil || !strings.Contains(err.Error(), "outside the project directory") {
		t.Errorf("%s with --project-dir proj: %v; want outside the project directory", outside, err)
	}
}
