// Resolver stage: DuckDB COLUMNS(...). A selector — a regular expression, a
// list of names, a lambda over the name, * or t.* — chooses columns of the
// FROM sources. A select item holding COLUMNS(...) stands for one output per
// chosen column (several COLUMNS in one item are zipped by position), each
// depending on its own column and named after it unless aliased;
// *COLUMNS(...) unpacks the chosen columns as the arguments of one call, and
// COLUMNS outside the select list (WHERE) reads every chosen column.

package cll

import (
	"regexp"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// columnsPick is the expansion of a select item being resolved: which of
// its COLUMNS calls pick which column.
type columnsPick struct {
	calls []*sqlparse.Func
	sel   [][]rcol
	at    int
}

// columnsCall returns e as a COLUMNS(...) call.
func columnsCall(e sqlparse.Expr) (*sqlparse.Func, bool) {
	f, ok := e.(*sqlparse.Func)
	if !ok || f.Over != nil || len(f.Name.Parts) != 1 || f.Name.IsQuoted(0) || !strings.EqualFold(f.Name.Parts[0], "COLUMNS") {
		return nil, false
	}
	return f, true
}

// columnsCalls lists the COLUMNS calls a select item expands over: all in
// the expression except those unpacked by *COLUMNS(...).
func columnsCalls(e sqlparse.Expr) []*sqlparse.Func {
	switch e.(type) {
	case *sqlparse.ColumnRef, *sqlparse.Literal:
		// The common items, without a walk.
		return nil
	}
	var calls, unpacked []*sqlparse.Func
	walkExpr(e, func(x sqlparse.Expr) {
		if u, ok := x.(*sqlparse.Unary); ok && u.Op == "*" {
			if f, ok := columnsCall(u.Expr); ok {
				unpacked = append(unpacked, f)
			}
		}
		if f, ok := columnsCall(x); ok {
			calls = append(calls, f)
		}
	})
	out := calls[:0]
	for _, f := range calls {
		if !containsFunc(unpacked, f) {
			out = append(out, f)
		}
	}
	return out
}

func containsFunc(fs []*sqlparse.Func, f *sqlparse.Func) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
}

// expandColumns resolves a select item holding COLUMNS calls into one output
// per chosen column.
func (a *analyzer) expandColumns(it *sqlparse.SelectItem, calls []*sqlparse.Func, sc *scope) []rcol {
	pick := &columnsPick{calls: calls, sel: make([][]rcol, len(calls))}
	n := -1
	var unknown []rcol
	for i, f := range calls {
		pick.sel[i], unknown = a.columnsOf(f, sc, unknown)
		if n < 0 || len(pick.sel[i]) < n {
			n = len(pick.sel[i])
		}
	}
	out := make([]rcol, 0, n+len(unknown))
	for k := 0; k < n; k++ {
		name := it.Alias
		if name == "" {
			name = pick.sel[0][k].name
		}
		if calls[0] == it.Expr {
			// COLUMNS(...) alone is the column itself, as a star would list it.
			out = append(out, rcol{name: name, l: asNamed(pick.sel[0][k].l, name)})
			continue
		}
		pick.at = k
		l := a.exprLin(it.Expr, &exprCtx{sc: sc, aliases: sc.items, columns: pick})
		parts := []uint64{l.digest}
		for i := range calls {
			parts = append(parts, pick.sel[i][k].l.digest)
		}
		l.digest = hashDigests("columns", parts...)
		out = append(out, rcol{name: name, l: classify(it.Expr, l, name)})
	}
	// Columns the selector may match but that are not known: the star
	// over them keeps the output incomplete (and the query opaque).
	return append(out, unknown...)
}

// visitColumns reports what a COLUMNS call reads: the column the expansion
// being resolved picks, else every column it selects.
func (a *analyzer) visitColumns(f *sqlparse.Func, ctx *exprCtx, emit *acc) {
	if p := ctx.columns; p != nil {
		for i, g := range p.calls {
			if g == f {
				if p.at < len(p.sel[i]) {
					emit.add(p.sel[i][p.at].l)
				}
				return
			}
		}
	}
	if ctx.sc == nil {
		return
	}
	sel, unknown := a.columnsOf(f, ctx.sc, nil)
	for _, c := range append(sel, unknown...) {
		emit.add(c.l)
	}
}

// columnsOf is the columns of scope sc a COLUMNS call selects, in FROM
// order, and, appended to unknown, the star over sources of unknown columns
// it may also select. A selector it cannot evaluate makes the query opaque.
func (a *analyzer) columnsOf(f *sqlparse.Func, sc *scope, unknown []rcol) ([]rcol, []rcol) {
	st := &sqlparse.Star{}
	var keep func(string) bool
	switch {
	case f.Star:
	case len(f.Args) != 1:
		a.opaque = append(a.opaque, "COLUMNS(...) takes one selector")
		return nil, unknown
	default:
		switch x := f.Args[0].(type) {
		case *sqlparse.Literal:
			re, err := regexp.Compile(x.Value)
			if x.Kind != "string" || err != nil {
				a.opaque = append(a.opaque, "invalid COLUMNS regular expression")
				return nil, unknown
			}
			keep = re.MatchString
		case *sqlparse.StarExpr:
			st.Qualifier = x.Qualifier
		case *sqlparse.List:
			names := map[string]bool{}
			for _, item := range x.Items {
				lit, ok := item.(*sqlparse.Literal)
				if !ok || lit.Kind != "string" {
					a.opaque = append(a.opaque, "COLUMNS list of names that are not string literals")
					return nil, unknown
				}
				names[strings.ToLower(lit.Value)] = true
			}
			keep = func(name string) bool { return names[strings.ToLower(name)] }
		case *sqlparse.Lambda:
			pred, ok := namePredicate(x)
			if !ok {
				a.opaque = append(a.opaque, "COLUMNS lambda that is not a test of the column name")
				return nil, unknown
			}
			keep = pred
		default:
			a.opaque = append(a.opaque, "COLUMNS selector that is not a regular expression, list, lambda or star")
			return nil, unknown
		}
	}
	all := a.expandStar(st, sc, sc.env, &relation{})
	out := make([]rcol, 0, len(all))
	for _, c := range all {
		if c.name == "*" {
			if len(unknown) == 0 {
				unknown = append(unknown, c)
			}
			continue
		}
		if keep == nil || keep(c.name) {
			out = append(out, c)
		}
	}
	return out, unknown
}

// namePredicate turns a lambda over a column name into a test, for the forms
// selectors are written in: LIKE, ILIKE, SIMILAR TO / regexp_matches /
// RLIKE, =, <>, IN, starts_with, ends_with and contains on the name,
// combined with AND, OR and NOT.
func namePredicate(l *sqlparse.Lambda) (func(string) bool, bool) {
	if len(l.Params) != 1 {
		return nil, false
	}
	param := l.Params[0]
	isParam := func(e sqlparse.Expr) bool {
		c, ok := e.(*sqlparse.ColumnRef)
		return ok && len(c.Name.Parts) == 1 && equalFold(c.Name.Parts[0], param)
	}
	str := func(e sqlparse.Expr) (string, bool) {
		if lit, ok := e.(*sqlparse.Literal); ok && lit.Kind == "string" {
			return lit.Value, true
		}
		return "", false
	}
	var eval func(e sqlparse.Expr) (func(string) bool, bool)
	eval = func(e sqlparse.Expr) (func(string) bool, bool) {
		switch x := e.(type) {
		case *sqlparse.Unary:
			if x.Op != "NOT" {
				return nil, false
			}
			p, ok := eval(x.Expr)
			return func(s string) bool { return !p(s) }, ok
		case *sqlparse.Binary:
			if x.Op == "AND" || x.Op == "OR" {
				l, okl := eval(x.Left)
				r, okr := eval(x.Right)
				if x.Op == "AND" {
					return func(s string) bool { return l(s) && r(s) }, okl && okr
				}
				return func(s string) bool { return l(s) || r(s) }, okl && okr
			}
			v, ok := str(x.Right)
			if !isParam(x.Left) || !ok {
				return nil, false
			}
			op, neg := strings.CutPrefix(x.Op, "NOT ")
			var p func(string) bool
			switch op {
			case "LIKE":
				p = func(s string) bool { return like(v, s, false) }
			case "ILIKE":
				p = func(s string) bool { return like(v, s, true) }
			case "SIMILAR", "RLIKE", "REGEXP", "~":
				re, err := regexp.Compile(v)
				if err != nil {
					return nil, false
				}
				p = re.MatchString
			case "=", "==":
				p = func(s string) bool { return s == v }
			case "<>", "!=":
				p = func(s string) bool { return s != v }
			default:
				return nil, false
			}
			if neg {
				return func(s string) bool { return !p(s) }, true
			}
			return p, true
		case *sqlparse.InExpr:
			if !isParam(x.Expr) || x.Query != nil {
				return nil, false
			}
			set := map[string]bool{}
			for _, item := range x.List {
				v, ok := str(item)
				if !ok {
					return nil, false
				}
				set[v] = true
			}
			return func(s string) bool { return set[s] != x.Not }, true
		case *sqlparse.Func:
			if len(x.Args) != 2 || !isParam(x.Args[0]) {
				return nil, false
			}
			v, ok := str(x.Args[1])
			if !ok {
				return nil, false
			}
			switch strings.ToUpper(x.Name.Last()) {
			case "REGEXP_MATCHES", "REGEXP_FULL_MATCH":
				re, err := regexp.Compile(v)
				if err != nil {
					return nil, false
				}
				if strings.EqualFold(x.Name.Last(), "REGEXP_FULL_MATCH") {
					re, err = regexp.Compile("^(?:" + v + ")$")
					if err != nil {
						return nil, false
					}
				}
				return re.MatchString, true
			case "STARTS_WITH", "PREFIX":
				return func(s string) bool { return strings.HasPrefix(s, v) }, true
			case "ENDS_WITH", "SUFFIX":
				return func(s string) bool { return strings.HasSuffix(s, v) }, true
			case "CONTAINS":
				return func(s string) bool { return strings.Contains(s, v) }, true
			}
		}
		return nil, false
	}
	return eval(l.Body)
}
