// Package chromiumtest starts the headless Chromium that the browser tests
// (internal/web, e2e/apphost) drive with chromedp. Only tests import it.
package chromiumtest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path finds Chromium: RIPPLE_CHROMIUM, else one on the PATH. Without one
// the test fails under CI=true (a missing dependency must not pass as a
// skip) and is skipped, saying why, elsewhere.
func Path(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("RIPPLE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("Chromium is not installed: browser tests need it under CI (bash .ci/chromium.sh installs Debian's chromium)")
	}
	t.Skip("Chromium is not installed: skipping the browser tests (apt-get install chromium, or set RIPPLE_CHROMIUM)")
	return ""
}

// Start launches headless Chromium with the flags this closed network needs
// (no QUIC, no component updates) and a fresh profile, in a window of the
// given size, and returns its context (at most 3 minutes), closed with the
// test.
func Start(t testing.TB, width, height int) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Path(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}
