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

// TestServeStartsAndStops runs `ripple serve --port 0` with presets in
// ripple.yml: it prints the address to open (with the token when one is
// set), applies the presets, answers the API and stops on cancellation.
func TestServeStartsAndStops(t *testing.T) {
	dir := t.TempDir()
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
		done <- Run(ctx, []string{"--project-dir", dir, "--state-file", state, "serve", "--port", "0"}, IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: pw})
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
	if info.StateFile != state || !strings.Contains(info.LoadError, "manifest.json") {
		t.Errorf("info = %+v, want the state file and a load error naming the missing manifest", info)
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
