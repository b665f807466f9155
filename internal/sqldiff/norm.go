package sqldiff

import (
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// normQuery rewrites the spellings the parser keeps but that mean the same
// thing (!= and <>, == and =, operator keyword case, parentheses around a
// query or a join tree), in place: each side is parsed for this diff only.
func normQuery(q *sqlparse.Query) {
	if q == nil {
		return
	}
	if q.With != nil {
		for _, c := range q.With.CTEs {
			normQuery(c.Query)
		}
	}
	q.Body = normBody(q.Body)
	for i := range q.OrderBy {
		q.OrderBy[i].Expr = normExpr(q.OrderBy[i].Expr)
	}
	q.Limit = normExpr(q.Limit)
	q.Offset = normExpr(q.Offset)
}

// bare reports a parenthesised query that adds nothing to its body.
func bare(q *sqlparse.Query) bool {
	return q.With == nil && len(q.OrderBy) == 0 && q.Limit == nil && q.Offset == nil
}

func normBody(b sqlparse.QueryBody) sqlparse.QueryBody {
	switch x := b.(type) {
	case *sqlparse.Query:
		normQuery(x)
		if bare(x) {
			return x.Body
		}
	case *sqlparse.SetOp:
		x.Left = normBody(x.Left)
		x.Right = normBody(x.Right)
	case *sqlparse.Select:
		normSelect(x)
	case *sqlparse.Values:
		for _, r := range x.Rows {
			for i := range r {
				r[i] = normExpr(r[i])
			}
		}
	}
	return b
}

func normSelect(s *sqlparse.Select) {
	for i := range s.DistinctOn {
		s.DistinctOn[i] = normExpr(s.DistinctOn[i])
	}
	for _, it := range s.Items {
		normItem(it)
	}
	for i := range s.From {
		s.From[i] = normTable(s.From[i])
	}
	s.Where = normExpr(s.Where)
	for i := range s.GroupBy {
		s.GroupBy[i] = normExpr(s.GroupBy[i])
	}
	s.Having = normExpr(s.Having)
	s.Qualify = normExpr(s.Qualify)
	for _, w := range s.Windows {
		normWindow(w)
	}
}

func normItem(it *sqlparse.SelectItem) {
	if it == nil {
		return
	}
	it.Expr = normExpr(it.Expr)
	if it.Star != nil {
		for _, r := range it.Star.Replace {
			normItem(r)
		}
	}
}

func normTable(t sqlparse.TableExpr) sqlparse.TableExpr {
	switch x := t.(type) {
	case *sqlparse.ParenTable:
		x.Inner = normTable(x.Inner)
		if x.Alias == "" {
			return x.Inner
		}
	case *sqlparse.Join:
		x.Left = normTable(x.Left)
		x.Right = normTable(x.Right)
		x.On = normExpr(x.On)
		x.Type = strings.ToUpper(x.Type)
	case *sqlparse.DerivedTable:
		normQuery(x.Query)
	case *sqlparse.TableFunc:
		normExpr(x.Func)
	case *sqlparse.ValuesTable:
		normBody(x.Values)
	case *sqlparse.Pivot:
		x.Source = normTable(x.Source)
		for _, a := range x.Aggs {
			normItem(a)
		}
		for i := range x.For {
			x.For[i] = normExpr(x.For[i])
		}
		for _, in := range x.In {
			for _, it := range in {
				normItem(it)
			}
		}
		for i := range x.GroupBy {
			x.GroupBy[i] = normExpr(x.GroupBy[i])
		}
	case *sqlparse.Unpivot:
		x.Source = normTable(x.Source)
		for _, it := range x.In {
			normItem(it)
		}
	}
	return t
}

func normWindow(w *sqlparse.WindowSpec) {
	if w == nil {
		return
	}
	for i := range w.PartitionBy {
		w.PartitionBy[i] = normExpr(w.PartitionBy[i])
	}
	normOrder(w.OrderBy)
}

func normOrder(items []sqlparse.OrderItem) {
	for i := range items {
		items[i].Expr = normExpr(items[i].Expr)
	}
}

// normOps are the operator spellings that mean the same.
var normOps = map[string]string{"!=": "<>", "==": "="}

func normExpr(e sqlparse.Expr) sqlparse.Expr {
	switch x := e.(type) {
	case *sqlparse.Binary:
		if op, ok := normOps[x.Op]; ok {
			x.Op = op
		} else {
			x.Op = strings.ToUpper(x.Op)
		}
		x.Left = normExpr(x.Left)
		x.Right = normExpr(x.Right)
	case *sqlparse.Unary:
		x.Op = strings.ToUpper(x.Op)
		x.Expr = normExpr(x.Expr)
	case *sqlparse.Func:
		for i := range x.Args {
			x.Args[i] = normExpr(x.Args[i])
		}
		normOrder(x.OrderBy)
		normOrder(x.WithinGroup)
		x.Filter = normExpr(x.Filter)
		normWindow(x.Over)
	case *sqlparse.Case:
		x.Operand = normExpr(x.Operand)
		for i := range x.Whens {
			x.Whens[i][0] = normExpr(x.Whens[i][0])
			x.Whens[i][1] = normExpr(x.Whens[i][1])
		}
		x.Else = normExpr(x.Else)
	case *sqlparse.Cast:
		x.Expr = normExpr(x.Expr)
	case *sqlparse.Subquery:
		normQuery(x.Query)
	case *sqlparse.InExpr:
		x.Expr = normExpr(x.Expr)
		for i := range x.List {
			x.List[i] = normExpr(x.List[i])
		}
		normQuery(x.Query)
	case *sqlparse.Between:
		x.Expr = normExpr(x.Expr)
		x.Lo = normExpr(x.Lo)
		x.Hi = normExpr(x.Hi)
	case *sqlparse.Access:
		x.Expr = normExpr(x.Expr)
		x.Index = normExpr(x.Index)
	case *sqlparse.List:
		for i := range x.Items {
			x.Items[i] = normExpr(x.Items[i])
		}
	case *sqlparse.Lambda:
		x.Body = normExpr(x.Body)
	case *sqlparse.Named:
		x.Value = normExpr(x.Value)
	case *sqlparse.TypedLiteral:
		x.Value = normExpr(x.Value)
	}
	return e
}
