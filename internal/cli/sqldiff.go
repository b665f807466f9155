package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ripple-data/ripple/internal/cli/render"
	"github.com/ripple-data/ripple/internal/ops"
)

// sqlDiffOptions are the flags of `ripple sql-diff`.
type sqlDiffOptions struct {
	Dialect     string
	Schema      string
	BaseSQL     string
	BaseSQLFile string
	SQL         string
	SQLFile     string
}

func newSQLDiffCmd(g *Globals, ios IOStreams, _ *ops.Registry) *cobra.Command {
	o := &sqlDiffOptions{}
	cmd := &cobra.Command{
		Use:   "sql-diff",
		Short: "What changed between two versions of a query, or that the edit is cosmetic (no dbt project needed)",
		Long: "Compares --base-sql-file A (or --base-sql TEXT) with --sql-file B (or --sql TEXT) through the SQL parser and prints (with --json)\n" +
			`{"cosmetic": bool, "changes": [{"kind", "column", "scope", "before", "after"}]}; changes is null, with "error", when a side does not parse.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			base, err := sqlArg("base SQL", "--base-sql", o.BaseSQL, "--base-sql-file", o.BaseSQLFile)
			if err != nil {
				return err
			}
			cur, err := sqlArg("SQL", "--sql", o.SQL, "--sql-file", o.SQLFile)
			if err != nil {
				return err
			}
			in := ops.SQLDiffInput{Dialect: o.Dialect, BaseSQL: base, SQL: cur}
			if o.Schema != "" {
				schema, order, err := readSchemaFile(o.Schema)
				if err != nil {
					return err
				}
				in.Schema = schema
				in.WithSchemaOrder(order)
			}
			out, err := ops.SQLDiff(in)
			if err != nil {
				return usageError{err}
			}
			if g.JSON {
				return writeJSON(ios.Out, out)
			}
			return render.Text(ios.Out, "sql_diff", out, ios.renderOptions())
		},
	}
	cmd.Flags().StringVar(&o.Dialect, "dialect", "generic", "SQL dialect: duckdb, postgres, redshift, snowflake, bigquery, databricks, trino or generic")
	cmd.Flags().StringVar(&o.Schema, "schema", "", "JSON file of upstream schemas {table: {column: type}}")
	cmd.Flags().StringVar(&o.BaseSQL, "base-sql", "", "the base SQL text")
	cmd.Flags().StringVar(&o.BaseSQLFile, "base-sql-file", "", "file with the base SQL")
	cmd.Flags().StringVar(&o.SQL, "sql", "", "the current SQL text")
	cmd.Flags().StringVar(&o.SQLFile, "sql-file", "", "file with the current SQL")
	return cmd
}

// sqlArg reads one side's SQL from its text flag or its file flag.
func sqlArg(what, textFlag, text, fileFlag, file string) (string, error) {
	switch {
	case text != "" && file != "":
		return "", usageError{fmt.Errorf("give the %s once: %s TEXT or %s FILE", what, textFlag, fileFlag)}
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("reading the %s (%s): %w", what, fileFlag, err)
		}
		return string(b), nil
	case text != "":
		return text, nil
	}
	return "", usageError{fmt.Errorf("the %s is required: %s TEXT or %s FILE", what, textFlag, fileFlag)}
}
