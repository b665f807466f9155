package ops

import (
	"github.com/ripple-data/ripple/internal/sqlparse"
)

// caseExpressions lists every CASE expression of a query as SQL, in source
// order, nested ones included (the peer's analyze_model case_expressions).
// SQL that does not parse has none.
func caseExpressions(dialect, sql string) []string {
	out := []string{}
	if sql == "" {
		return out
	}
	q, err := sqlparse.Parse(sqlparse.LookupDialect(dialect), sql)
	if err != nil || q == nil {
		return out
	}
	w := caseWalker{found: func(c *sqlparse.Case) { out = append(out, sqlparse.Format(c)) }}
	w.query(q)
	return out
}

// caseWalker visits every expression of a parsed query.
type caseWalker struct{ found func(*sqlparse.Case) }

func (w caseWalker) query(q *sqlparse.Query) {
	if q == nil {
		return
	}
	if q.With != nil {
		for _, c := range q.With.CTEs {
			w.query(c.Query)
		}
	}
	w.body(q.Body)
	w.order(q.OrderBy)
	w.expr(q.Limit)
	w.expr(q.Offset)
}

func (w caseWalker) body(b sqlparse.QueryBody) {
	switch b := b.(type) {
	case *sqlparse.Select:
		w.exprs(b.DistinctOn)
		for _, it := range b.Items {
			w.item(it)
		}
		for _, t := range b.From {
			w.table(t)
		}
		w.expr(b.Where)
		w.exprs(b.GroupBy)
		w.expr(b.Having)
		w.expr(b.Qualify)
		for _, ws := range b.Windows {
			w.window(ws)
		}
	case *sqlparse.SetOp:
		w.body(b.Left)
		w.body(b.Right)
	case *sqlparse.Query:
		w.query(b)
	case *sqlparse.Values:
		w.values(b)
	}
}

func (w caseWalker) item(it *sqlparse.SelectItem) {
	if it == nil {
		return
	}
	w.expr(it.Expr)
	if it.Star != nil {
		for _, r := range it.Star.Replace {
			w.item(r)
		}
	}
}

func (w caseWalker) values(v *sqlparse.Values) {
	if v == nil {
		return
	}
	for _, row := range v.Rows {
		w.exprs(row)
	}
}

func (w caseWalker) table(t sqlparse.TableExpr) {
	switch t := t.(type) {
	case *sqlparse.DerivedTable:
		w.query(t.Query)
	case *sqlparse.TableFunc:
		if t.Func != nil {
			w.expr(t.Func)
		}
	case *sqlparse.ValuesTable:
		w.values(t.Values)
	case *sqlparse.Join:
		w.table(t.Left)
		w.table(t.Right)
		w.expr(t.On)
	case *sqlparse.Pivot:
		w.table(t.Source)
		for _, it := range t.Aggs {
			w.item(it)
		}
		w.exprs(t.For)
		for _, list := range t.In {
			for _, it := range list {
				w.item(it)
			}
		}
		w.exprs(t.GroupBy)
	case *sqlparse.Unpivot:
		w.table(t.Source)
		for _, it := range t.In {
			w.item(it)
		}
	case *sqlparse.ParenTable:
		w.table(t.Inner)
	}
}

func (w caseWalker) window(ws *sqlparse.WindowSpec) {
	if ws == nil {
		return
	}
	w.exprs(ws.PartitionBy)
	w.order(ws.OrderBy)
}

func (w caseWalker) order(items []sqlparse.OrderItem) {
	for _, o := range items {
		w.expr(o.Expr)
	}
}

func (w caseWalker) exprs(es []sqlparse.Expr) {
	for _, e := range es {
		w.expr(e)
	}
}

func (w caseWalker) expr(e sqlparse.Expr) {
	switch e := e.(type) {
	case *sqlparse.Case:
		w.found(e)
		w.expr(e.Operand)
		for _, wt := range e.Whens {
			w.expr(wt[0])
			w.expr(wt[1])
		}
		w.expr(e.Else)
	case *sqlparse.TypedLiteral:
		w.expr(e.Value)
	case *sqlparse.Func:
		w.exprs(e.Args)
		w.order(e.OrderBy)
		w.expr(e.Filter)
		w.order(e.WithinGroup)
		w.window(e.Over)
	case *sqlparse.Binary:
		w.expr(e.Left)
		w.expr(e.Right)
	case *sqlparse.Unary:
		w.expr(e.Expr)
	case *sqlparse.Cast:
		w.expr(e.Expr)
	case *sqlparse.Subquery:
		w.query(e.Query)
	case *sqlparse.InExpr:
		w.expr(e.Expr)
		w.exprs(e.List)
		w.query(e.Query)
	case *sqlparse.Between:
		w.expr(e.Expr)
		w.expr(e.Lo)
		w.expr(e.Hi)
	case *sqlparse.Access:
		w.expr(e.Expr)
		w.expr(e.Index)
	case *sqlparse.List:
		w.exprs(e.Items)
	case *sqlparse.Lambda:
		w.expr(e.Body)
	case *sqlparse.Named:
		w.expr(e.Value)
	}
}
