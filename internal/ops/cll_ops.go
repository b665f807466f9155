package ops

import (
	"context"

	"github.com/ripple-data/ripple/internal/impact"
)

// columnLineageFor returns the column lineage used to prune impact, or nil
// while no column-level lineage is available.
func columnLineageFor(ctx context.Context, s *Session) impact.ColumnLineage {
	return nil
}
