package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ripple-data/ripple/internal/cli/render"
	"github.com/ripple-data/ripple/internal/ops"
)

// sqlLineageOptions are the flags of `ripple sql-lineage`.
type sqlLineageOptions struct {
	Dialect string
	Schema  string
	SQL     string
}

func newSQLLineageCmd(g *Globals, ios IOStreams, _ *ops.Registry) *cobra.Command {
	o := &sqlLineageOptions{}
	cmd := &cobra.Command{
		Use:   "sql-lineage",
		Short: "Column lineage of one SQL query (no dbt project needed)",
		Long: "Reads a SELECT from --sql FILE (or stdin) and upstream schemas from --schema FILE ({table: {column: type}}), and prints (with --json)\n" +
			`{"columns": {"<out>": {"deps": ["<table>.<col>"], "kind": "..."}}, "row_deps": [...]} in output-column order.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			in := ops.SQLLineageInput{Dialect: o.Dialect}
			var sqlText []byte
			var err error
			if o.SQL == "" || o.SQL == "-" {
				sqlText, err = io.ReadAll(ios.In)
			} else {
				sqlText, err = os.ReadFile(o.SQL)
			}
			if err != nil {
				return fmt.Errorf("reading the SQL: %w", err)
			}
			in.SQL = string(sqlText)
			if o.Schema != "" {
				data, err := os.ReadFile(o.Schema)
				if err != nil {
					return fmt.Errorf("reading the schema: %w", err)
				}
				schema, order, err := ops.DecodeOrderedSchema(data)
				if err != nil {
					return usageError{fmt.Errorf("%s: %w", o.Schema, err)}
				}
				in.Schema = schema
				in.WithSchemaOrder(order)
			}
			out, err := ops.SQLLineage(in)
			if err != nil {
				return err
			}
			if g.JSON {
				return writeJSON(ios.Out, out)
			}
			return render.Text(ios.Out, "sql_lineage", out, ios.renderOptions())
		},
	}
	cmd.Flags().StringVar(&o.Dialect, "dialect", "generic", "SQL dialect: duckdb, postgres, redshift, snowflake, bigquery, databricks or generic")
	cmd.Flags().StringVar(&o.Schema, "schema", "", "JSON file of upstream schemas {table: {column: type}}")
	cmd.Flags().StringVar(&o.SQL, "sql", "", "file with the SQL (default: stdin)")
	return cmd
}
