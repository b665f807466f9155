package ops

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/golden"
)

// TestOperationsDoc keeps docs/operations.md equal to the registry, so the
// documented contract cannot drift from the code.
func TestOperationsDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "operations.md")
	golden.Assert(t, path, []byte(Default().MarkdownReference()))
}

// TestEveryOperationIsDescribed checks the parts of the contract agents rely on.
func TestEveryOperationIsDescribed(t *testing.T) {
	for _, op := range Default().Ops() {
		if op.Title == "" || len(op.Description) < 40 {
			t.Errorf("%s needs a title and a real description", op.Name)
		}
		if op.OutputSchema == nil || op.OutputSchema.Type != "object" {
			t.Errorf("%s must return an object", op.Name)
		}
		if p, ok := op.InputSchema.Properties["select"]; ok && p != nil {
			if !containsAll(op.Description, "union", "intersection") {
				t.Errorf("%s takes select but does not document the grammar", op.Name)
			}
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
