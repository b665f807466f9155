package cli

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMCPHTTPRefusesNonLoopbackWithoutToken is issue #27 item 9: `mcp
// --http` off loopback without a token is refused, as `serve` refuses it,
// unless --allow-unauthenticated says something in front authenticates.
func TestMCPHTTPRefusesNonLoopbackWithoutToken(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, "mcp", "--project-dir", dir, "--http", "0.0.0.0:0")
	if r.code != 2 || !strings.Contains(r.err, "not a loopback address") || !strings.Contains(r.err, "--auth-token-env") || !strings.Contains(r.err, "--allow-unauthenticated") {
		t.Fatalf("mcp --http 0.0.0.0:0 without a token: exit %d, stderr %q", r.code, r.err)
	}
	// With the flag it serves (stopped by the context).
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var out strings.Builder
	errOut := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"mcp", "--project-dir", dir, "--http", "0.0.0.0:0", "--allow-unauthenticated"}, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: errOut})
	}()
	deadline := time.Now().Add(3 * time.Second)
	for !strings.Contains(errOut.String(), "serving streamable HTTP") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("mcp --http 0.0.0.0:0 --allow-unauthenticated: exit %d, stderr %q", code, errOut.String())
	}
}

// lockedBuffer is an io.Writer the test reads while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
