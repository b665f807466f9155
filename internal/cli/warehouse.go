package cli

import (
	"context"
	"fmt"

	"github.com/ripple-data/ripple/internal/warehouse"
)

// warehouseOpener returns how the session opens the warehouse: the --duckdb
// shortcut, else the dbt profile.
func (g *Globals) warehouseOpener() func(ctx context.Context) (warehouse.Conn, error) {
	return func(ctx context.Context) (warehouse.Conn, error) {
		return nil, fmt.Errorf("warehouse connections are not wired yet")
	}
}
