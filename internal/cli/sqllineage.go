package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ripple-data/ripple/internal/cli/render"
	"github.com/ripple-data/ripple/internal/ops"
)

// sqlLineageOptions are the flags of `ripple sql-lineage`.
type sqlLineageOptions struct {
	Dialect string
	Schema  string
	SQL     string
	SQLFile string
}

func newSQLLineageCmd(g *Globals, ios IOStreams, _ *ops.Registry) *cobra.Command {
	o := &sqlLineageOptions{}
	cmd := &cobra.Command{
		Use:   "sql-lineage",
		Short: "Column lineage of one SQL query (no dbt project needed)",
		Long: "Reads a SELECT from --sql TEXT, --sql-file FILE or stdin, and upstream schemas from --schema FILE ({table: {column: type}}), and prints (with --json)\n" +
			`{"columns": {"<out>": {"deps": ["<table>.<col>"], "kind": "..."}}, "row_deps": [...]} in output-column order.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			in := ops.SQLLineageInput{Dialect: o.Dialect}
			var sqlText []byte
			var err error
			switch {
			case o.SQL != "" && o.SQLFile != "":
				return usageError{fmt.Errorf("give the SQL once: --sql TEXT or --sql-file FILE")}
			case o.SQLFile != "" && o.SQLFile != "-":
				sqlText, err = os.ReadFile(o.SQLFile)
			case o.SQL != "" && o.SQL != "-":
				// --sql is the SQL text, as in `ripple query`. It used to be
				// a path: a value naming a file is still read, with a warning.
				if st, serr := os.Stat(o.SQL); serr == nil && st.Mode().IsRegular() && !strings.ContainsAny(o.SQL, " \n\t") {
					fmt.Fprintf(ios.ErrOut, "warning: --sql %s reads the file; --sql takes the SQL text now, use --sql-file for a file\n", o.SQL)
					sqlText, err = os.ReadFile(o.SQL)
				} else {
					sqlText = []byte(o.SQL)
				}
			default:
				sqlText, err = io.ReadAll(ios.In)
			}
			if err != nil {
				return fmt.Errorf("reading the SQL: %w", err)
			}
			in.SQL = string(sqlText)
			if o.Schema != "" {
				schema, order, err := readSchemaFile(o.Schema)
				if err != nil {
					return err
				}
				in.Schema = schema
				in.WithSchemaOrder(order)
			}
			out, err := ops.SQLLineage(in)
			if err != nil {
				return err
			}
			if g.JSON {
				err = writeJSON(ios.Out, out)
			} else {
				err = render.Text(ios.Out, "sql_lineage", out, ios.renderOptions())
			}
			if err != nil {
				return err
			}
			if out.Opaque {
				// Columns without deps are not lineage when a name was not
				// understood: a script must not take them for it.
				return &ExitError{Code: exitFailed, Err: fmt.Errorf("the lineage is incomplete (%s); qualify the column, or give its table's columns in --schema", out.OpaqueReason)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Dialect, "dialect", "generic", "SQL dialect: "+strings.Join(ops.SQLDialects(), ", ")+" (or an adapter alias)")
	cmd.Flags().StringVar(&o.Schema, "schema", "", "JSON file of upstream schemas {table: {column: type}}")
	cmd.Flags().StringVar(&o.SQL, "sql", "", "the SQL text (as in `ripple query`; default: stdin)")
	cmd.Flags().StringVar(&o.SQLFile, "sql-file", "", "file with the SQL (- for stdin)")
	return cmd
}

// readSchemaFile reads a --schema file of upstream schemas {table: {column:
// type}}, keeping each table's column order (sql-lineage and sql-diff).
func readSchemaFile(path string) (map[string]map[string]string, map[string][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the schema: %w", err)
	}
	schema, order, err := ops.DecodeOrderedSchema(data)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("%s: %w", path, err)}
	}
	return schema, order, nil
}
