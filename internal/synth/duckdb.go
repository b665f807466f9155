package synth

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	// The DuckDB database/sql driver.
	_ "github.com/duckdb/duckdb-go/v2"
)

// BuildDuckDB writes path (a DuckDB file named after the project's
// database, "synth.duckdb") with schemas base and current holding every
// model's relation, empty, with its catalog columns: tables as tables and
// views as views over no rows. It is the warehouse side of a benchmark
// project, where what is measured is the per-model cost of a triage, not
// the scan of data.
func (p *Project) BuildDuckDB(ctx context.Context, path string) error {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return err
	}
	defer db.Close()
	var b strings.Builder
	for _, schema := range []string{"base", "current"} {
		fmt.Fprintf(&b, "CREATE SCHEMA IF NOT EXISTS %s;\n", schema)
		for _, r := range p.Relations {
			cols := make([]string, len(r.Columns))
			for i, c := range r.Columns {
				if r.Materialized == "view" {
					cols[i] = fmt.Sprintf("CAST(NULL AS %s) AS %q", c.Type, c.Name)
				} else {
					cols[i] = fmt.Sprintf("%q %s", c.Name, c.Type)
				}
			}
			if r.Materialized == "view" {
				fmt.Fprintf(&b, "CREATE VIEW %s.%q AS SELECT %s WHERE false;\n", schema, r.Name, strings.Join(cols, ", "))
			} else {
				fmt.Fprintf(&b, "CREATE TABLE %s.%q (%s);\n", schema, r.Name, strings.Join(cols, ", "))
			}
		}
	}
	// Checkpoint, so that opening the file does not replay the log.
	b.WriteString("CHECKPOINT;\n")
	if _, err := db.ExecContext(ctx, b.String()); err != nil {
		return fmt.Errorf("building %s: %w", path, err)
	}
	return nil
}
