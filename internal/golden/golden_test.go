package golden

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEveryTestPackageLinksGolden keeps `go test ./... -update` working: a
// test binary that does not link this package has no -update flag and would
// fail the whole run with "flag provided but not defined".
func TestEveryTestPackageLinksGolden(t *testing.T) {
	const self = "github.com/ripple-data/ripple/internal/golden"
	cmd := exec.Command("go", "list", "-f",
		"{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{join .TestImports \",\"}},{{join .XTestImports \",\"}}{{end}}", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if pkg == "" || pkg == self {
			continue
		}
		if !strings.Contains(","+imports+",", ","+self+",") {
			t.Errorf("%s has tests but does not import %s: add a golden_flag_test.go with a blank import", pkg, self)
		}
	}
}
