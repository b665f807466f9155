package impact

import (
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/sqlparse"
)

// grain is the set of output columns a query's SQL makes unique, with the
// clause that does it (for the evidence shown to the user).
type grain struct {
	Columns  []string
	Evidence string
}

// maxGrainDepth bounds how many CTEs and subqueries are followed.
const maxGrainDepth = 16

// sqlGrain reads the grain of a compiled model from its final SELECT: the
// GROUP BY columns (or GROUP BY ALL), DISTINCT / DISTINCT ON, a QUALIFY
// row_number() … = 1 partition, a `where rn = 1` over a row_number()
// partition, or, for a SELECT that only filters, renames or passes through
// a single CTE or subquery, that one's grain. It returns nil when the SQL
// does not make any set of output columns unique (or cannot be parsed);
// what it returns is a claim the caller verifies in the warehouse.
func sqlGrain(dialect, sql string) *grain {
	if strings.TrimSpace(sql) == "" {
		return nil
	}
	q, err := sqlparse.Parse(sqlparse.LookupDialect(dialect), sql)
	if err != nil || q == nil {
		return nil
	}
	return grainOfQuery(q, nil, 0)
}

// cteScope maps lower-cased CTE names to their queries, innermost first.
type cteScope struct {
	defs   map[string]*sqlparse.Query
	parent *cteScope
}

func (s *cteScope) lookup(name string) *sqlparse.Query {
	for ; s != nil; s = s.parent {
		if q, ok := s.defs[strings.ToLower(name)]; ok {
			return q
		}
	}
	return nil
}

func grainOfQuery(q *sqlparse.Query, env *cteScope, depth int) *grain {
	if q == nil || depth > maxGrainDepth {
		return nil
	}
	if q.With != nil && !q.With.Recursive && len(q.With.CTEs) > 0 {
		inner := &cteScope{defs: map[string]*sqlparse.Query{}, parent: env}
		for _, c := range q.With.CTEs {
			if len(c.Columns) == 0 {
				inner.defs[strings.ToLower(c.Name)] = c.Query
			}
		}
		env = inner
	}
	return grainOfBody(q.Body, env, depth)
}

func grainOfBody(b sqlparse.QueryBody, env *cteScope, depth int) *grain {
	switch x := b.(type) {
	case *sqlparse.Query:
		return grainOfQuery(x, env, depth+1)
	case *sqlparse.Select:
		return grainOfSelect(x, env, depth)
	case *sqlparse.SetOp:
		// UNION without ALL removes duplicate rows: every output column together.
		if x.Op == "UNION" && !x.All && !x.ByName {
			if s, ok := leftmostSelect(x.Left); ok {
				if names, ok := outputNames(s); ok {
					return &grain{Columns: names, Evidence: "union (without all) of distinct rows"}
				}
			}
		}
	}
	return nil
}

func leftmostSelect(b sqlparse.QueryBody) (*sqlparse.Select, bool) {
	for {
		switch x := b.(type) {
		case *sqlparse.Select:
			return x, true
		case *sqlparse.SetOp:
			b = x.Left
		case *sqlparse.Query:
			if x.With != nil {
				return nil, false
			}
			b = x.Body
		default:
			return nil, false
		}
	}
}

// outputNames are the names of a SELECT's items; ok is false when a star
// or an unnamed expression makes them unknown.
func outputNames(s *sqlparse.Select) ([]string, bool) {
	if s.ImplicitStar {
		return nil, false
	}
	out := make([]string, len(s.Items))
	for i, it := range s.Items {
		n := itemName(it)
		if n == "" {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

func itemName(it *sqlparse.SelectItem) string {
	if it.Star != nil {
		return ""
	}
	if it.Alias != "" {
		return it.Alias
	}
	if c, ok := it.Expr.(*sqlparse.ColumnRef); ok {
		return c.Name.Last()
	}
	return ""
}

func grainOfSelect(s *sqlparse.Select, env *cteScope, depth int) *grain {
	if len(s.DistinctOn) > 0 {
		if cols, ok := mapToOutputs(s, s.DistinctOn); ok {
			return &grain{Columns: cols, Evidence: "select distinct on (" + formatList(s.DistinctOn) + ")"}
		}
		return nil
	}
	if s.GroupByAll {
		var cols []string
		for _, it := range s.Items {
			if it.Star != nil {
				return nil
			}
			if !containsAggregate(it.Expr) {
				n := itemName(it)
				if n == "" {
					return nil
				}
				cols = append(cols, n)
			}
		}
		if len(cols) == 0 {
			return nil
		}
		return &grain{Columns: cols, Evidence: "group by all (" + strings.Join(cols, ", ") + ")"}
	}
	if len(s.GroupBy) > 0 {
		if cols, ok := mapToOutputs(s, s.GroupBy); ok {
			return &grain{Columns: cols, Evidence: "group by " + formatList(s.GroupBy)}
		}
		return nil
	}
	if s.Distinct {
		if names, ok := outputNames(s); ok {
			return &grain{Columns: names, Evidence: "select distinct"}
		}
		return nil
	}
	if s.Qualify != nil {
		if part := firstRowPartition(s.Qualify, s); part != nil {
			if cols, ok := mapToOutputs(s, part); ok {
				return &grain{Columns: cols, Evidence: "qualify row_number() over (partition by " + formatList(part) + ") = 1"}
			}
		}
		return nil
	}
	return passThroughGrain(s, env, depth)
}

// passThroughGrain follows a SELECT that reads a single CTE or subquery
// without joining, grouping or unnesting: filters and renames keep the
// source's grain, and so does `where rn = 1` over a row_number() partition.
func passThroughGrain(s *sqlparse.Select, env *cteScope, depth int) *grain {
	if len(s.From) != 1 {
		return nil
	}
	var src *sqlparse.Query
	var alias string
	switch t := s.From[0].(type) {
	case *sqlparse.TableRef:
		if len(t.Name.Parts) != 1 || len(t.ColAliases) > 0 {
			return nil
		}
		src, alias = env.lookup(t.Name.Parts[0]), t.Alias
		if alias == "" {
			alias = t.Name.Parts[0]
		}
	case *sqlparse.DerivedTable:
		if t.Lateral || len(t.ColAliases) > 0 {
			return nil
		}
		src, alias = t.Query, t.Alias
	}
	if src == nil {
		return nil
	}
	var g *grain
	if rn, ok := rowNumberFilter(s.Where); ok {
		g = rowNumberGrain(src, rn)
	}
	if g == nil {
		g = grainOfQuery(src, env, depth+1)
	}
	if g == nil {
		return nil
	}
	return mapThrough(s, alias, g)
}

// mapThrough renames a source grain through a SELECT's items: a star
// passes every column on (minus EXCLUDE), a bare column reference passes
// it under its alias. Every grain column must reach the output.
func mapThrough(s *sqlparse.Select, alias string, g *grain) *grain {
	out := make([]string, 0, len(g.Columns))
	for _, col := range g.Columns {
		name := ""
		if s.ImplicitStar {
			name = col
		}
		for _, it := range s.Items {
			if name != "" {
				break
			}
			if st := it.Star; st != nil {
				if (len(st.Qualifier) == 0 || strings.EqualFold(st.Qualifier[len(st.Qualifier)-1], alias)) &&
					!st.HasILike && !containsFold(st.Exclude, col) && !renamed(st, col) {
					name = col
				}
				continue
			}
			if c, ok := it.Expr.(*sqlparse.ColumnRef); ok && strings.EqualFold(c.Name.Last(), col) &&
				(len(c.Name.Parts) == 1 || strings.EqualFold(c.Name.Parts[len(c.Name.Parts)-2], alias)) {
				name = itemName(it)
			}
		}
		if name == "" {
			return nil
		}
		out = append(out, name)
	}
	return &grain{Columns: out, Evidence: g.Evidence}
}

func renamed(st *sqlparse.Star, col string) bool {
	for _, r := range st.Rename {
		if strings.EqualFold(r[0], col) {
			return true
		}
	}
	for _, r := range st.Replace {
		if strings.EqualFold(r.Alias, col) {
			return true
		}
	}
	return false
}

// rowNumberFilter recognises `rn = 1` (or `rn <= 1`) in a WHERE clause,
// alone or ANDed with other conditions, and returns the column name.
func rowNumberFilter(e sqlparse.Expr) (string, bool) {
	b, ok := e.(*sqlparse.Binary)
	if !ok {
		return "", false
	}
	if strings.EqualFold(b.Op, "AND") {
		if n, ok := rowNumberFilter(b.Left); ok {
			return n, true
		}
		return rowNumberFilter(b.Right)
	}
	col, lit := b.Left, b.Right
	if _, isLit := col.(*sqlparse.Literal); isLit {
		col, lit = lit, col
	}
	c, ok := col.(*sqlparse.ColumnRef)
	if !ok || !isOne(lit) || (b.Op != "=" && b.Op != "<=") {
		return "", false
	}
	return c.Name.Last(), true
}

// rowNumberGrain is the partition of the row_number() column rn of a
// source query's final SELECT, as output columns of that SELECT.
func rowNumberGrain(q *sqlparse.Query, rn string) *grain {
	s, ok := q.Body.(*sqlparse.Select)
	if !ok || len(s.GroupBy) > 0 || s.GroupByAll || s.Distinct {
		return nil
	}
	for _, it := range s.Items {
		if !strings.EqualFold(itemName(it), rn) {
			continue
		}
		part := rowNumberPartition(it.Expr)
		if part == nil {
			return nil
		}
		if cols, ok := mapToOutputs(s, part); ok {
			return &grain{Columns: cols, Evidence: "row_number() over (partition by " + formatList(part) + ") = 1"}
		}
	}
	return nil
}

// firstRowPartition returns the partition of a QUALIFY that keeps the
// first row per partition: row_number() over (partition by …) = 1, directly
// or through the alias of a select item.
func firstRowPartition(e sqlparse.Expr, s *sqlparse.Select) []sqlparse.Expr {
	b, ok := e.(*sqlparse.Binary)
	if !ok {
		return nil
	}
	if strings.EqualFold(b.Op, "AND") {
		if p := firstRowPartition(b.Left, s); p != nil {
			return p
		}
		return firstRowPartition(b.Right, s)
	}
	if b.Op != "=" && b.Op != "<=" {
		return nil
	}
	side, lit := b.Left, b.Right
	if _, isLit := side.(*sqlparse.Literal); isLit {
		side, lit = lit, side
	}
	if !isOne(lit) {
		return nil
	}
	if c, ok := side.(*sqlparse.ColumnRef); ok && len(c.Name.Parts) == 1 {
		for _, it := range s.Items {
			if it.Alias != "" && strings.EqualFold(it.Alias, c.Name.Parts[0]) {
				return rowNumberPartition(it.Expr)
			}
		}
		return nil
	}
	return rowNumberPartition(side)
}

func rowNumberPartition(e sqlparse.Expr) []sqlparse.Expr {
	f, ok := e.(*sqlparse.Func)
	if !ok || !strings.EqualFold(f.Name.Last(), "row_number") || f.Over == nil || len(f.Over.PartitionBy) == 0 {
		return nil
	}
	return f.Over.PartitionBy
}

func isOne(e sqlparse.Expr) bool {
	l, ok := e.(*sqlparse.Literal)
	return ok && l.Kind == "number" && l.Value == "1"
}

// mapToOutputs names the output columns that the expressions select: a
// position (group by 1), a column the SELECT outputs (under its alias), an
// output alias, or an expression the SELECT outputs verbatim. Every
// expression must map, else the output columns are not the grain.
func mapToOutputs(s *sqlparse.Select, exprs []sqlparse.Expr) ([]string, bool) {
	out := make([]string, 0, len(exprs))
	for _, e := range exprs {
		name := ""
		switch x := e.(type) {
		case *sqlparse.Literal:
			if x.Kind == "number" {
				if i, err := strconv.Atoi(x.Value); err == nil && i >= 1 && i <= len(s.Items) {
					name = itemName(s.Items[i-1])
				}
			}
		case *sqlparse.ColumnRef:
			for _, it := range s.Items {
				if c, ok := it.Expr.(*sqlparse.ColumnRef); ok && it.Star == nil && sameColumn(c, x) {
					name = itemName(it)
					break
				}
			}
			if name == "" && len(x.Name.Parts) == 1 {
				for _, it := range s.Items {
					if it.Alias != "" && strings.EqualFold(it.Alias, x.Name.Parts[0]) {
						name = it.Alias
						break
					}
				}
			}
			// Under a star the column is output under its own name.
			if name == "" && (s.ImplicitStar || hasPlainStar(s)) {
				name = x.Name.Last()
			}
		}
		if name == "" {
			f := sqlparse.Format(e)
			for _, it := range s.Items {
				if it.Star == nil && it.Expr != nil && sqlparse.Format(it.Expr) == f {
					name = itemName(it)
					break
				}
			}
		}
		if name == "" {
			return nil, false
		}
		if !containsFold(out, name) {
			out = append(out, name)
		}
	}
	return out, len(out) > 0
}

func hasPlainStar(s *sqlparse.Select) bool {
	for _, it := range s.Items {
		if st := it.Star; st != nil && !st.HasILike && len(st.Exclude) == 0 && len(st.Rename) == 0 && len(st.Replace) == 0 {
			return true
		}
	}
	return false
}

// sameColumn compares two column references by their last part and, when
// both are qualified, their qualifier.
func sameColumn(a, b *sqlparse.ColumnRef) bool {
	if !strings.EqualFold(a.Name.Last(), b.Name.Last()) {
		return false
	}
	pa, pb := a.Name.Parts, b.Name.Parts
	if len(pa) > 1 && len(pb) > 1 {
		return strings.EqualFold(pa[len(pa)-2], pb[len(pb)-2])
	}
	return true
}

func containsAggregate(e sqlparse.Expr) bool {
	found := false
	var walk func(sqlparse.Expr)
	walk = func(e sqlparse.Expr) {
		if found || e == nil {
			return
		}
		switch x := e.(type) {
		case *sqlparse.Func:
			if x.Over == nil && cll.IsAggregate(x.Name.Last()) {
				found = true
				return
			}
			for _, a := range x.Args {
				walk(a)
			}
		case *sqlparse.Binary:
			walk(x.Left)
			walk(x.Right)
		case *sqlparse.Unary:
			walk(x.Expr)
		case *sqlparse.Cast:
			walk(x.Expr)
		case *sqlparse.Case:
			walk(x.Operand)
			for _, w := range x.Whens {
				walk(w[0])
				walk(w[1])
			}
			walk(x.Else)
		}
	}
	walk(e)
	return found
}

func formatList(es []sqlparse.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = strings.ToLower(sqlparse.Format(e))
	}
	return strings.Join(parts, ", ")
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
