package cli

import (
	"strings"
	"testing"
)

// TestMCPToolsets: --toolsets (or RIPPLE_TOOLSETS) names the toolsets to
// serve; an unknown one is a usage error listing the known ones.
func TestMCPToolsets(t *testing.T) {
	p := build(t, noChange)
	r := p.ripple(t, "mcp", "--toolsets", "recce,statics")
	if r.code != 2 || !strings.Contains(r.err, `unknown toolset "statics": use all, checks, current, lineage, recce, review, static`) {
		t.Errorf("--toolsets recce,statics: exit %d\n%s", r.code, r.err)
	}
	t.Setenv("RIPPLE_TOOLSETS", "nope")
	if r := p.ripple(t, "mcp"); r.code != 2 || !strings.Contains(r.err, `unknown toolset "nope"`) {
		t.Errorf("RIPPLE_TOOLSETS=nope: exit %d\n%s", r.code, r.err)
	}
	// A known toolset serves (stdin is empty, so the session ends at once).
	t.Setenv("RIPPLE_TOOLSETS", "static,checks")
	if r := p.ripple(t, "mcp"); r.code != 0 {
		t.Errorf("RIPPLE_TOOLSETS=static,checks: exit %d\n%s", r.code, r.err)
	}
}
