package dbt

import (
	"strings"
	"testing"
)

func TestParseRelationName(t *testing.T) {
	for _, tc := range []struct {
		dialect, in string
		want        []string
	}{
		{"duckdb", `"acme"."pr"."customers"`, []string{"acme", "pr", "customers"}},
		{"postgres", `"ripple_test"."Sch"."T ""x"""`, []string{"ripple_test", "Sch", `T "x"`}},
		{"postgres", `analytics.pr.customers`, []string{"analytics", "pr", "customers"}},
		{"postgres", `Analytics.PR.Customers`, []string{"analytics", "pr", "customers"}},
		{"snowflake", `ANALYTICS.pr."Mixed"`, []string{"ANALYTICS", "PR", "Mixed"}},
		{"bigquery", "`my-project`.`ds`.`t`", []string{"my-project", "ds", "t"}},
		{"bigquery", "`my-project.ds.t`", []string{"my-project", "ds", "t"}},
		{"duckdb", `"main"."orders"`, []string{"main", "orders"}},
		{"duckdb", `orders`, []string{"orders"}},
		// Space and comments are dropped: only the identifiers are kept.
		{"duckdb", ` "acme" . "pr"."customers" -- built by dbt`, []string{"acme", "pr", "customers"}},
	} {
		got, err := ParseRelationName(tc.dialect, tc.in)
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("ParseRelationName(%s, %s) = %q, %v; want %q", tc.dialect, tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		`"acme"."pr"."customers"; SET memory_limit='1MB'; --`,
		`(SELECT 1)`, `"a"."b"."c"."d"`, `"a".`, `"a"..b`, `""`, `'a'.b`, `a b`, ``, `read_csv('/etc/passwd')`,
	} {
		if got, err := ParseRelationName("duckdb", in); err == nil {
			t.Errorf("ParseRelationName(%q) = %q, want an error", in, got)
		}
	}
}

func TestRelationPartsNamesTheNode(t *testing.T) {
	n := &Node{UniqueID: "model.acme.customers", RelationName: `"acme"."pr"."customers"; SET memory_limit='1MB'; SELECT 1`}
	_, _, _, err := n.RelationParts("duckdb")
	if err == nil || !strings.Contains(err.Error(), "model.acme.customers") || !strings.Contains(err.Error(), "not a relation name") {
		t.Fatalf("err = %v", err)
	}
	n = &Node{UniqueID: "model.acme.orders", Database: "acme", Schema: "pr", Name: "orders", Alias: "orders_v2"}
	db, schema, id, err := n.RelationParts("duckdb")
	if err != nil || db != "acme" || schema != "pr" || id != "orders_v2" {
		t.Fatalf("fields: %s %s %s %v", db, schema, id, err)
	}
}

func FuzzParseRelationName(f *testing.F) {
	for _, s := range []string{`"a"."b"."c"`, "`p.d.t`", `a.b`, `"a"; drop`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts, err := ParseRelationName("duckdb", s)
		if err != nil {
			return
		}
		if len(parts) == 0 || len(parts) > 3 {
			t.Fatalf("%q: %d parts", s, len(parts))
		}
		// Re-quoted parts read back as the same relation.
		var q []string
		for _, p := range parts {
			q = append(q, `"`+strings.ReplaceAll(p, `"`, `""`)+`"`)
		}
		again, err := ParseRelationName("duckdb", strings.Join(q, "."))
		if err != nil || strings.Join(again, "\x00") != strings.Join(parts, "\x00") {
			t.Fatalf("%q -> %q -> %q, %v", s, parts, again, err)
		}
	})
}
