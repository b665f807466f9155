package sqlparse

// WalkExpr visits e and its sub-expressions in order, not entering
// subqueries (a subquery is visited as one node). With windows, it also
// enters a function's ORDER BY, WITHIN GROUP and OVER clauses; without, a
// function is its arguments and FILTER only (column lineage reads window
// clauses apart, as row shaping). The one expression walker of the parser's
// callers (cll, sqldiff).
func WalkExpr(e Expr, windows bool, fn func(Expr)) {
	if e == nil {
		return
	}
	fn(e)
	switch x := e.(type) {
	case *Func:
		for _, a := range x.Args {
			WalkExpr(a, windows, fn)
		}
		if windows {
			for _, o := range x.OrderBy {
				WalkExpr(o.Expr, windows, fn)
			}
			for _, o := range x.WithinGroup {
				WalkExpr(o.Expr, windows, fn)
			}
		}
		WalkExpr(x.Filter, windows, fn)
		if windows && x.Over != nil {
			for _, p := range x.Over.PartitionBy {
				WalkExpr(p, windows, fn)
			}
			for _, o := range x.Over.OrderBy {
				WalkExpr(o.Expr, windows, fn)
			}
		}
	case *Binary:
		WalkExpr(x.Left, windows, fn)
		WalkExpr(x.Right, windows, fn)
	case *Unary:
		WalkExpr(x.Expr, windows, fn)
	case *Case:
		WalkExpr(x.Operand, windows, fn)
		for _, w := range x.Whens {
			WalkExpr(w[0], windows, fn)
			WalkExpr(w[1], windows, fn)
		}
		WalkExpr(x.Else, windows, fn)
	case *Cast:
		WalkExpr(x.Expr, windows, fn)
	case *InExpr:
		WalkExpr(x.Expr, windows, fn)
		for _, i := range x.List {
			WalkExpr(i, windows, fn)
		}
	case *Between:
		WalkExpr(x.Expr, windows, fn)
		WalkExpr(x.Lo, windows, fn)
		WalkExpr(x.Hi, windows, fn)
	case *Access:
		WalkExpr(x.Expr, windows, fn)
		WalkExpr(x.Index, windows, fn)
	case *List:
		for _, i := range x.Items {
			WalkExpr(i, windows, fn)
		}
	case *Lambda:
		WalkExpr(x.Body, windows, fn)
	case *Named:
		WalkExpr(x.Value, windows, fn)
	case *TypedLiteral:
		WalkExpr(x.Value, windows, fn)
	}
}
