package fakeserver

import "testing"

func TestToDuckDB(t *testing.T) {
	bigquery := Spelling{Backticks: true, BackslashEscapes: true, DoubleQuotedStrings: true}
	databricks := Spelling{Backticks: true, BackslashEscapes: true, Functions: map[string]string{"PERCENTILE": "quantile_cont"}}
	for _, tt := range []struct {
		sp       Spelling
		in, want string
	}{
		{bigquery, "SELECT 'it\\'s a \\\\ back\\\\slash, a \"quote\" and\\na newline' AS `Mixed \"Case\" col`",
			"SELECT 'it''s a \\ back\\slash, a \"quote\" and\na newline' AS \"Mixed \"\"Case\"\" col\""},
		{bigquery, `SELECT "double", 'a''b', '\x41\u00e9\q' FROM ` + "`p`.`d`.`t\\`x`",
			`SELECT 'double', 'a''b', 'Aéq' FROM "p"."d"."t` + "`" + `x"`},
		{bigquery, "SELECT 1 -- it's a comment\n, 'x'", "SELECT 1 -- it's a comment\n, 'x'"},
		{Spelling{BackslashEscapes: true}, `SELECT "Id""x", 'a\tb' FROM "S"."T"`, "SELECT \"Id\"\"x\", 'a\tb' FROM \"S\".\"T\""},
		{databricks, "SELECT PERCENTILE(i, 0.9), percentile (x, 0.5), percentile, 'PERCENTILE(' FROM `t`",
			`SELECT quantile_cont(i, 0.9), quantile_cont (x, 0.5), percentile, 'PERCENTILE(' FROM "t"`},
		{Spelling{}, `SELECT 'a\'`, `SELECT 'a\'`},
		{bigquery, `SELECT 'unterminated`, `SELECT 'unterminated'`},
	} {
		if got := tt.sp.ToDuckDB(tt.in); got != tt.want {
			t.Errorf("ToDuckDB(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
