package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/checks"
)

func TestServeRefusesNonLoopbackWithoutToken(t *testing.T) {
	t.Setenv(TokenEnv, "")
	var out, errOut strings.Builder
	code := Run(context.Background(), []string{"serve", "--host", "0.0.0.0", "--port", "0"}, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	if code != 2 || !strings.Contains(errOut.String(), TokenEnv) || !strings.Contains(errOut.String(), "not a loopback address") {
		t.Errorf("serve --host 0.0.0.0 without a token: exit %d, stderr %q", code, errOut.String())
	}
}

// Without artifacts, or without a base build, serve refuses to start with
// the message the other commands give.
func TestServeRefusesWithoutArtifacts(t *testing.T) {
	demoDir := filepath.Join(t.TempDir(), "demo")
	if code := Run(context.Background(), []string{"demo", "--dir", demoDir}, IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}); code != 0 {
		t.Fatalf("demo: exit %d", code)
	}
	empty := t.TempDir()
	run := func(args ...string) (int, string) {
		var errOut strings.Builder
		code := Run(context.Background(), args, IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut})
		return code, errOut.String()
	}
	for _, c := range []struct {
		name, dir, base string
		code            int
	}{
		{"no artifacts", empty, "target-base", 1},
		{"no base build", demoDir, "no-such-base", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, serveErr := run("--project-dir", c.dir, "--target-base-path", c.base, "serve", "--port", "0")
			wantCode, wantErr := run("--project-dir", c.dir, "--target-base-path", c.base, "lineage-diff")
			if code != c.code || code != wantCode || serveErr != wantErr || !strings.HasPrefix(serveErr, "error: ") {
				t.Errorf("serve: exit %d %q; lineage-diff: exit %d %q; want both exit %d with the same message", code, serveErr, wantCode, wantErr, c.code)
			}
		})
	}
}

// TestServeStartsAndStops runs `ripple serve --port 0` with presets in
// ripple.yml: it prints the address to open (with the token when one is
// set), applies the presets, answers the API and stops on cancellation.
func TestServeStartsAndStops(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	if code := Run(context.Background(), []string{"demo", "--dir", dir}, IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}); code != 0 {
		t.Fatalf("demo: exit %d", code)
	}
	preset := "checks:\n  - name: Schema of everything\n    type: schema_diff\n    params: {}\n"
	if err := os.WriteFile(filepath.Join(dir, checks.DefaultConfigFile), []byte(preset), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state.json")
	t.Setenv(TokenEnv, "tok-123")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"--project-dir", dir, "--duckdb", filepath.Join(dir, "jaffle_shop.duckdb"), "--state-file", state, "serve", "--port", "0"}, IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: pw})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the serve banner: %v (exit %v)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`open (http://127\.0\.0\.1:\d+/)\?token=tok-123 in a browser`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("banner = %q, want the loopback address with the token", line)
	}
	req, _ := http.NewRequest("GET", m[1]+"api/info", nil)
	req.Header.Set("Authorization", "Bearer tok-123")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		StateFile string `json:"state_file"`
		LoadError string `json:"load_error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&info); err != nil || res.StatusCode != 200 {
		t.Fatalf("/api/info: %d %v", res.StatusCode, err)
	}
	res.Body.Close()
	if info.StateFile != state || info.LoadError != "" {
		t.Errorf("info = %+v, want the state file and no load error", info)
	}
	raw, err := os.ReadFile(state)
	if err != nil || !strings.Contains(string(raw), `"Schema of everything"`) || !strings.Contains(string(raw), `"is_preset": true`) {
		t.Errorf("state file after start = %s (%v), want the preset check", raw, err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d after cancellation, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after cancellation")
	}
}

func TestDemoTellsHowToOpenTheUI(t *testing.T) {
	var out, errOut strings.Builder
	dir := filepath.Join(t.TempDir(), "demo")
	if code := Run(context.Background(), []string{"demo", "--dir", dir}, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "Review it in a browser:") || !regexp.MustCompile(`ripple --project-dir \S+ --duckdb \S+jaffle_shop\.duckdb serve`).MatchString(out.String()) ||
		!strings.Contains(out.String(), "ripple demo --serve") {
		t.Errorf("demo output does not say how to open the UI:\n%s", out.String())
	}
}
