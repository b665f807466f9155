package render

import (
	"fmt"
	"io"

	"github.com/ripple-data/ripple/internal/checks"
)

func checkRenderers() map[string]Func {
	return map[string]Func{
		"list_checks": typed(listChecks),
	}
}

func listChecks(w io.Writer, out *checks.ListResult, o Options) error {
	fmt.Fprintf(w, "%d checks, %d approved, %d outdated\n", out.Total, out.Approved, out.Outdated)
	for _, c := range out.Checks {
		mark := " "
		if c.IsChecked {
			mark = "✓"
		}
		status := string(c.LastRunStatus)
		if status == "" {
			status = "never run"
		}
		if c.IsOutdated {
			status += ", outdated"
		}
		fmt.Fprintf(w, "%s %s  %-16s %s (%s)\n", mark, c.ID, c.Type, c.Name, status)
	}
	return nil
}
