package alias

import (
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	cases := []struct {
		name           string
		canonical, old string
		want, wantErr  string
	}{
		{"only canonical", "a", "", "a", ""},
		{"only alias", "", "b", "b", ""},
		{"both equal", "c", "c", "c", ""},
		{"both differ", "c", "d", "c", "sql_template and its deprecated alias sql are both set and differ"},
		{"neither", "", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			canon, old := c.canonical, c.old
			err := Fold(&canon, &old, "sql_template", "sql")
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || canon != c.want || old != "" {
				t.Fatalf("Fold = %q, %q, %v; want %q, \"\", nil", canon, old, err, c.want)
			}
		})
	}
	// Slices compare by value.
	a, b := []string{"x"}, []string{"x"}
	if err := Fold(&a, &b, "node_id", "node_ids"); err != nil || b != nil || len(a) != 1 {
		t.Fatalf("equal slices: %v %v %v", a, b, err)
	}
	c, d := []string{"x"}, []string{"y"}
	if err := Fold(&c, &d, "node_id", "node_ids"); err == nil {
		t.Fatal("different slices folded")
	}
}
