package sqlparse

import "strings"

// Name is a possibly-qualified identifier. Parts are already folded per
// dialect; bit i of Quoted is set when part i was quoted (a bitmask keeps
// names to one allocation).
type Name struct {
	Parts  []string
	Quoted uint64
	Pos    Pos
}

// IsQuoted reports whether part i was quoted.
func (n Name) IsQuoted(i int) bool { return i < 64 && n.Quoted&(1<<uint(i)) != 0 }

// String joins the parts with dots.
func (n Name) String() string {
	switch len(n.Parts) {
	case 0:
		return ""
	case 1:
		return n.Parts[0]
	}
	return strings.Join(n.Parts, ".")
}

// Last returns the final part.
func (n Name) Last() string {
	if len(n.Parts) == 0 {
		return ""
	}
	return n.Parts[len(n.Parts)-1]
}

// Query is a full query: optional WITH, a body and trailing ORDER/LIMIT.
type Query struct {
	With    *With
	Body    QueryBody
	OrderBy []OrderItem
	Limit   Expr
	Offset  Expr
	Pos     Pos
}

// With is a WITH clause.
type With struct {
	Recursive bool
	CTEs      []*CTE
}

// CTE is one common table expression.
type CTE struct {
	Name    string
	Columns []string
	Query   *Query
	Pos     Pos
}

// QueryBody is *Select, *SetOp, *Query (parenthesised) or *Values.
type QueryBody interface{ queryBody() }

// SetOp is UNION / INTERSECT / EXCEPT (MINUS).
type SetOp struct {
	Op     string // UNION, INTERSECT, EXCEPT
	All    bool
	ByName bool // DuckDB UNION [ALL] BY NAME
	Left   QueryBody
	Right  QueryBody
}

// Values is a VALUES list used as a query or table.
type Values struct {
	Rows [][]Expr
}

// Select is one SELECT block (FROM-first blocks included).
type Select struct {
	Distinct   bool
	DistinctOn []Expr
	// As is "STRUCT" or "VALUE" for BigQuery's SELECT AS STRUCT / AS VALUE
	// (rows are one struct of the select list, or its one value).
	As    string
	Items []*SelectItem
	// ImplicitStar is set for DuckDB's bare "FROM t" (means SELECT *).
	ImplicitStar bool
	From         []TableExpr
	Where        Expr
	GroupBy      []Expr
	GroupByAll   bool
	Having       Expr
	Qualify      Expr
	Windows      map[string]*WindowSpec
	Pos          Pos
}

func (*Select) queryBody() {}
func (*SetOp) queryBody()  {}
func (*Query) queryBody()  {}
func (*Values) queryBody() {}

// SelectItem is an expression with an optional alias, or a star.
type SelectItem struct {
	Expr  Expr
	Alias string
	// AliasQuoted tells whether the alias was quoted.
	AliasQuoted bool
	Star        *Star
	Pos         Pos
}

// Star is *, t.*, with modifiers. DuckDB's COLUMNS(...) is a function call
// (*Func), wherever it appears: the resolver expands it.
type Star struct {
	Qualifier []string
	Exclude   []string
	Replace   []*SelectItem
	Rename    [][2]string
	ILike     string
	HasILike  bool
}

// OrderItem is an ORDER BY element.
type OrderItem struct {
	Expr Expr
	Desc bool
}

// TableExpr is a FROM item.
type TableExpr interface{ tableExpr() }

// TableRef is a named relation.
type TableRef struct {
	Name       Name
	Alias      string
	ColAliases []string
	Pos        Pos
}

// DerivedTable is a subquery in FROM.
type DerivedTable struct {
	Query      *Query
	Lateral    bool
	Alias      string
	ColAliases []string
}

// TableFunc is a function in FROM: UNNEST, FLATTEN, generate_series, ...
type TableFunc struct {
	Func       *Func
	Lateral    bool
	Alias      string
	ColAliases []string
	// WithOffset is BigQuery's WITH OFFSET [AS alias].
	WithOffset  bool
	OffsetAlias string
}

// ValuesTable is VALUES in FROM.
type ValuesTable struct {
	Values     *Values
	Alias      string
	ColAliases []string
}

// Join is a binary join.
type Join struct {
	Type    string // INNER, LEFT, RIGHT, FULL, CROSS, SEMI, ANTI, ASOF, POSITIONAL, COMMA
	Natural bool
	Left    TableExpr
	Right   TableExpr
	On      Expr
	Using   []string
}

// Pivot is PIVOT (agg [AS alias], ... FOR col IN (...) [col IN (...)]
// [GROUP BY ...]).
type Pivot struct {
	Source TableExpr
	Aggs   []*SelectItem
	// For are the pivot columns; In[i] are the values of For[i] (the
	// output columns are the cross product of the value lists).
	For []Expr
	In  [][]*SelectItem
	// Dynamic is set when a value list is IN (ANY ...) or IN (subquery):
	// the output column names depend on the data.
	Dynamic bool
	// GroupBy, when given, lists the grouping columns kept in the output
	// (otherwise every source column not aggregated or pivoted is kept).
	GroupBy    []Expr
	Alias      string
	ColAliases []string
}

// Unpivot is UNPIVOT (value FOR name IN (cols)).
type Unpivot struct {
	Source     TableExpr
	ValueCols  []string
	NameCol    string
	In         []*SelectItem
	Alias      string
	ColAliases []string
}

// ParenTable is a parenthesised join tree with an optional alias.
type ParenTable struct {
	Inner TableExpr
	Alias string
}

func (*TableRef) tableExpr()     {}
func (*DerivedTable) tableExpr() {}
func (*TableFunc) tableExpr()    {}
func (*ValuesTable) tableExpr()  {}
func (*Join) tableExpr()         {}
func (*Pivot) tableExpr()        {}
func (*Unpivot) tableExpr()      {}
func (*ParenTable) tableExpr()   {}

// Expr is an expression node.
type Expr interface{ expr() }

// ColumnRef is a (possibly qualified, possibly field-accessing) name.
type ColumnRef struct {
	Name Name
}

// StarExpr is * or t.* inside an expression (count(*), row(t.*)).
type StarExpr struct {
	Qualifier []string
}

// Literal is a constant: Kind is "string", "number", "null", "bool", "param".
type Literal struct {
	Kind  string
	Value string
}

// TypedLiteral is DATE '...', TIMESTAMP '...', INTERVAL '1' DAY, ...
type TypedLiteral struct {
	Type  string
	Value Expr
	Unit  string
}

// Keyword is a bare keyword in argument position (date parts, LEADING...).
type Keyword struct {
	Word string
}

// Func is a function call, aggregate or window function.
type Func struct {
	Name        Name
	Args        []Expr
	Distinct    bool
	Star        bool // f(*)
	OrderBy     []OrderItem
	Filter      Expr
	WithinGroup []OrderItem
	Over        *WindowSpec
	// Seps records keyword separators between args (FROM, FOR, IN, AS, ...)
	// so formatting keeps EXTRACT(year FROM x) distinct from f(year, x).
	Seps []string
}

// WindowSpec is OVER (...) or OVER name.
type WindowSpec struct {
	Name        string
	PartitionBy []Expr
	OrderBy     []OrderItem
	Frame       string
}

// Binary is a binary operator.
type Binary struct {
	Op    string
	Left  Expr
	Right Expr
}

// Unary is a prefix (or postfix IS NULL-style) operator.
type Unary struct {
	Op   string
	Expr Expr
}

// Case is CASE [operand] WHEN ... THEN ... ELSE ... END.
type Case struct {
	Operand Expr
	Whens   [][2]Expr
	Else    Expr
}

// Cast is CAST(x AS t), x::t, TRY_CAST, SAFE_CAST.
type Cast struct {
	Expr Expr
	Type string
	Func string
}

// Subquery is a query used as an expression.
type Subquery struct {
	Query *Query
	Kind  string // SCALAR, EXISTS, ARRAY
}

// InExpr is x [NOT] IN (list | subquery).
type InExpr struct {
	Expr  Expr
	Not   bool
	List  []Expr
	Query *Query
}

// Between is x [NOT] BETWEEN a AND b.
type Between struct {
	Expr Expr
	Not  bool
	Lo   Expr
	Hi   Expr
}

// Access is x[i], x.field (on a non-name base) or Snowflake x:path.
type Access struct {
	Expr  Expr
	Index Expr
	Field string
	Op    string // "[", ".", ":"
}

// List is an array/struct/tuple/map constructor or row: Kind says which.
type List struct {
	Kind  string
	Items []Expr
	Names []string
}

// Lambda is x -> expr (DuckDB, Spark, Snowflake).
type Lambda struct {
	Params []string
	Body   Expr
}

// Named is a named argument: name => value.
type Named struct {
	Name  string
	Value Expr
}

func (*ColumnRef) expr()    {}
func (*StarExpr) expr()     {}
func (*Literal) expr()      {}
func (*TypedLiteral) expr() {}
func (*Keyword) expr()      {}
func (*Func) expr()         {}
func (*Binary) expr()       {}
func (*Unary) expr()        {}
func (*Case) expr()         {}
func (*Cast) expr()         {}
func (*Subquery) expr()     {}
func (*InExpr) expr()       {}
func (*Between) expr()      {}
func (*Access) expr()       {}
func (*List) expr()         {}
func (*Lambda) expr()       {}
func (*Named) expr()        {}
