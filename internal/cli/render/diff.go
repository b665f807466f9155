package render

import (
	"fmt"
	"io"
	"sort"

	"github.com/ripple-data/ripple/internal/diff"
)

func diffRenderers() map[string]Func {
	return map[string]Func{
		"row_count_diff": typed(rowCountDiff),
	}
}

func rowCountDiff(w io.Writer, out *diff.RowCountDiffResult, o Options) error {
	Warn(w, out.Warning)
	names := make([]string, 0, len(out.Models))
	for n := range out.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "%-40s %12s %12s  %s\n", "model", "base", "current", "delta")
	for _, n := range names {
		rc := out.Models[n]
		side := func(v *int64, m diff.RowCountMeta) string {
			if v == nil {
				return "N/A (" + m.Status + ")"
			}
			return fmt.Sprint(*v)
		}
		delta := ""
		if rc.Base != nil && rc.Current != nil {
			delta = fmt.Sprintf("%+d", *rc.Current-*rc.Base)
		}
		fmt.Fprintf(w, "%-40s %12s %12s  %s\n", n, side(rc.Base, rc.BaseMeta), side(rc.Current, rc.CurrentMeta), delta)
		for _, m := range []diff.RowCountMeta{rc.BaseMeta, rc.CurrentMeta} {
			if m.Status != diff.StatusOK && m.Message != "" {
				fmt.Fprintf(w, "  %s: %s\n", m.Status, m.Message)
				break
			}
		}
	}
	return nil
}
