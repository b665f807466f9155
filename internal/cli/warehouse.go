package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/open"
)

// warehouseOpener returns how the session opens the warehouse: the --duckdb
// shortcut, else the dbt profile. Connections are read-only: no operation
// behind the CLI or the MCP server writes to the warehouse.
func (g *Globals) warehouseOpener() func(ctx context.Context, p *dbt.Project) (warehouse.Conn, error) {
	return func(ctx context.Context, p *dbt.Project) (warehouse.Conn, error) {
		opts := open.OpenOptions{ReadOnly: true, AllowExternalAccess: g.DuckDBExternalAccess, MaxBytes: g.MaxBytes,
			StatementTimeout: g.StatementTimeout, MaxResultBytes: g.MaxResultBytes, MaxCellBytes: g.MaxCellBytes}
		if g.DuckDB != "" {
			if _, err := os.Stat(g.DuckDB); err != nil {
				return nil, fmt.Errorf("the DuckDB file %s given with --duckdb cannot be opened: %w; point --duckdb at the file dbt built (or run `ripple demo`)", g.DuckDB, err)
			}
			return open.Open(ctx, profiles.Target{Type: "duckdb", Path: g.DuckDB, Database: p.ModelDatabase()}, opts)
		}
		// The startup project's directory, not the one set_backend may have
		// switched to, unless the operator allowed it.
		dir := g.ProjectDir
		if g.ProfilesFollowBackend || dir == "" {
			dir = p.Paths.ProjectDir
		}
		t, err := profiles.Load(profiles.LoadOptions{ProfilesDir: g.ProfilesDir, ProjectDir: dir, Profile: g.Profile, Target: g.Target})
		if err != nil {
			return nil, err
		}
		conn, err := open.Open(ctx, t, opts)
		if err != nil {
			// A value rendered from env_var() may sit in any field (a host,
			// a path) that an error quotes.
			return nil, t.RedactEnv(err)
		}
		return conn, nil
	}
}
