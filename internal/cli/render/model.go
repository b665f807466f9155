package render

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/ops"
)

func modelRenderers() map[string]Func {
	return map[string]Func{
		"get_model": typed(getModel),
	}
}

// getModel shows both builds side by side: one row per column with its
// type in base and current (a change marked), then key, materialization
// and whether the code changed.
func getModel(w io.Writer, out *ops.GetModelResult, o Options) error {
	b, c := out.Model.Base, out.Model.Current
	id := c.UniqueID
	if id == "" {
		id = b.UniqueID
	}
	status := "unchanged"
	switch {
	case b.UniqueID == "":
		status = "added (not in base)"
	case c.UniqueID == "":
		status = "removed (not in current)"
	case b.RawCode != c.RawCode:
		status = "code changed"
	}
	fmt.Fprintf(w, "%s: %s\n", id, status)
	side := func(base, cur string) string {
		if base == cur {
			return dash(cur)
		}
		return dash(base) + " → " + dash(cur)
	}
	fmt.Fprintf(w, "materialized:  %s\n", side(b.Materialized, c.Materialized))
	key := func(s ops.ModelSide) string {
		if s.PrimaryKey == "" {
			return ""
		}
		if s.PrimaryKeys != nil {
			return s.PrimaryKey + " (" + s.PrimaryKeys.Basis + ")"
		}
		return s.PrimaryKey
	}
	fmt.Fprintf(w, "primary key:   %s\n", side(key(b), key(c)))

	order := append([]string{}, c.ColumnOrder...)
	seen := map[string]bool{}
	for _, n := range order {
		seen[n] = true
	}
	var extra []string
	for _, cols := range []map[string]*ops.ModelColumn{c.Columns, b.Columns} {
		for n := range cols {
			if !seen[n] {
				seen[n] = true
				extra = append(extra, n)
			}
		}
	}
	sort.Strings(extra)
	// Removed columns go where base had them would need a merge; after is clear enough.
	order = append(order, extra...)
	if len(order) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	t := Table{Header: []string{"", "column", "base type", "current type", "tests"}}
	shown := min(len(order), o.limit())
	for _, n := range order[:shown] {
		bc, cc := b.Columns[n], c.Columns[n]
		mark, bt, ct := "", "—", "—"
		if bc != nil {
			bt = bc.Type
		}
		if cc != nil {
			ct = cc.Type
		}
		switch {
		case bc == nil && b.UniqueID != "":
			mark = "+"
		case cc == nil && c.UniqueID != "":
			mark = "−"
		case bc != nil && cc != nil && !strings.EqualFold(bc.Type, cc.Type):
			mark = "~"
		}
		tc := cc
		if tc == nil {
			tc = bc
		}
		var tests []string
		if tc.NotNull {
			tests = append(tests, "not_null")
		}
		if tc.Unique {
			tests = append(tests, "unique")
		}
		t.Add(mark, n, bt, ct, list(tests, 2))
	}
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	More(w, shown, len(order))
	fmt.Fprintln(w, "(+ added, − removed, ~ type changed; the SQL with --json)")
	return nil
}
