package cli_test

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSQLDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.sql")
	cur := filepath.Join(dir, "current.sql")
	if err := os.WriteFile(base, []byte("with o as (select id, amount from orders where id not in (1013, 1014)) select id, amount from o"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cur, []byte("with x as (\n  select id, amount\n  from orders\n  where id not in (777, 15001)\n)\nselect id, amount from x;"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := execRipple(t, "sql-diff", "--dialect", "duckdb", "--base-sql-file", base, "--sql-file", cur, "--json")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	want := `{
  "cosmetic": false,
  "changes": [
    {
      "kind": "filter",
      "column": "id",
      "columns": [
        "id",
        "amount"
      ],
      "scope": "x",
      "before": "id NOT IN (1013, 1014)",
      "after": "id NOT IN (777, 15001)"
    }
  ]
}
`
	if string(r.stdout) != want {
		t.Errorf("got:\n%s\nwant:\n%s", r.stdout, want)
	}
	// A cosmetic edit, the SQL given as text.
	r = execRipple(t, "sql-diff", "--dialect", "snowflake", "--base-sql", "select id from orders where a <> 1", "--sql", `SELECT "ID" FROM ORDERS o WHERE (o.a != 1);`, "--json")
	if r.code != 0 || string(r.stdout) != "{\n  \"cosmetic\": true,\n  \"changes\": []\n}\n" {
		t.Errorf("cosmetic: %s", r)
	}
	// No current SQL: a usage error.
	r = execRipple(t, "sql-diff", "--base-sql", "select 1", "--json")
	if r.code != 2 {
		t.Errorf("missing --sql: exit %d, want 2 (usage)\n%s", r.code, r)
	}
}
