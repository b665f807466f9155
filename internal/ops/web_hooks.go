package ops

import (
	"context"

	"github.com/ripple-data/ripple/internal/lineage"
)

// LineageDiffUncapped is lineage_diff without the 300-node cap of
// view_mode=all, for the web UI: the cap keeps agent results small, while the
// browser draws (and culls) the whole graph. Same input, same result type,
// same selection rules (an empty view_mode means changed_models).
func LineageDiffUncapped(ctx context.Context, s *Session, in *lineage.DiffInput) (*lineage.DiffResult, error) {
	mode := in.ViewMode
	if mode == "" {
		mode = "changed_models"
	}
	ids, cmp, err := selectIDs(ctx, s, SelectInput{Select: in.Select, Exclude: in.Exclude, Packages: in.Packages, ViewMode: mode, AllowEmpty: in.AllowEmpty})
	if err != nil {
		return nil, err
	}
	// Diff caps only when told the view is "all"; the selection above has
	// already applied the view mode.
	v, err := Verdicts(ctx, s)
	if err != nil {
		return nil, err
	}
	return cmp.Diff(ids, "", v.Verdict), nil
}
