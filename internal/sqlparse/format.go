package sqlparse

import (
	"strings"
)

// Format renders an expression in a canonical one-line form: keywords
// upper-case, identifiers as folded, single spaces. Two expressions that
// differ only in formatting, comments or keyword case format identically,
// which is what expression digests rely on.
func Format(e Expr) string {
	var b strings.Builder
	fmtExpr(&b, e, nil)
	return b.String()
}

// Writer is what FormatTo writes to: a strings.Builder, or a hasher that
// digests the canonical text without materialising it.
type Writer interface {
	WriteString(string) (int, error)
	WriteByte(byte) error
}

// RefFunc may write a replacement for a column reference and return true.
type RefFunc func(w Writer, c *ColumnRef) bool

// QueryFunc may write a replacement for a subquery and return true.
type QueryFunc func(w Writer, q *Query) bool

// hooks are the replacements FormatTo applies.
type hooks struct {
	ref   RefFunc
	query QueryFunc
}

// FormatTo writes the canonical form of e to w; ref, when it returns true,
// replaces a column reference (used to substitute resolved lineage), and
// query, likewise, a subquery (which Format writes as <subquery>).
func FormatTo(w Writer, e Expr, ref RefFunc, query QueryFunc) {
	fmtExpr(w, e, &hooks{ref: ref, query: query})
}

func fmtList(b Writer, es []Expr, h *hooks) {
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		fmtExpr(b, e, h)
	}
}

func fmtOrder(b Writer, items []OrderItem, h *hooks) {
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		fmtExpr(b, it.Expr, h)
		if it.Desc {
			b.WriteString(" DESC")
		}
	}
}

func fmtExpr(b Writer, e Expr, h *hooks) {
	switch x := e.(type) {
	case nil:
		b.WriteString("NULL")
	case *ColumnRef:
		if h != nil && h.ref != nil && h.ref(b, x) {
			return
		}
		for i, part := range x.Name.Parts {
			if i > 0 {
				b.WriteString(".")
			}
			b.WriteString(part)
		}
	case *StarExpr:
		for _, q := range x.Qualifier {
			b.WriteString(q)
			b.WriteString(".")
		}
		b.WriteString("*")
	case *Literal:
		if x.Kind == "string" {
			// Quote without allocating: digests format every literal.
			_ = b.WriteByte('\'')
			for i := 0; i < len(x.Value); i++ {
				if x.Value[i] == '\'' {
					_ = b.WriteByte('\'')
				}
				_ = b.WriteByte(x.Value[i])
			}
			_ = b.WriteByte('\'')
		} else {
			b.WriteString(x.Value)
		}
	case *TypedLiteral:
		b.WriteString(x.Type)
		b.WriteString(" ")
		fmtExpr(b, x.Value, h)
		if x.Unit != "" {
			b.WriteString(" ")
			b.WriteString(x.Unit)
		}
	case *Keyword:
		b.WriteString(x.Word)
	case *Func:
		writeUpperName(b, x.Name)
		b.WriteString("(")
		if x.Distinct {
			b.WriteString("DISTINCT ")
		}
		if x.Star {
			b.WriteString("*")
		}
		fmtList(b, x.Args, h)
		if len(x.Seps) > 0 {
			b.WriteString(" /" + strings.Join(x.Seps, ",") + "/")
		}
		if len(x.OrderBy) > 0 {
			b.WriteString(" ORDER BY ")
			fmtOrder(b, x.OrderBy, h)
		}
		b.WriteString(")")
		if len(x.WithinGroup) > 0 {
			b.WriteString(" WITHIN GROUP (ORDER BY ")
			fmtOrder(b, x.WithinGroup, h)
			b.WriteString(")")
		}
		if x.Filter != nil {
			b.WriteString(" FILTER (WHERE ")
			fmtExpr(b, x.Filter, h)
			b.WriteString(")")
		}
		if x.Over != nil {
			b.WriteString(" OVER (")
			fmtWindow(b, x.Over, h)
			b.WriteString(")")
		}
	case *Binary:
		b.WriteString("(")
		fmtExpr(b, x.Left, h)
		b.WriteString(" ")
		b.WriteString(x.Op)
		b.WriteString(" ")
		fmtExpr(b, x.Right, h)
		b.WriteString(")")
	case *Unary:
		b.WriteString(x.Op)
		b.WriteString(" ")
		fmtExpr(b, x.Expr, h)
	case *Case:
		b.WriteString("CASE")
		if x.Operand != nil {
			b.WriteString(" ")
			fmtExpr(b, x.Operand, h)
		}
		for _, w := range x.Whens {
			b.WriteString(" WHEN ")
			fmtExpr(b, w[0], h)
			b.WriteString(" THEN ")
			fmtExpr(b, w[1], h)
		}
		if x.Else != nil {
			b.WriteString(" ELSE ")
			fmtExpr(b, x.Else, h)
		}
		b.WriteString(" END")
	case *Cast:
		b.WriteString("CAST(")
		fmtExpr(b, x.Expr, h)
		b.WriteString(" AS ")
		b.WriteString(x.Type)
		b.WriteString(")")
	case *Subquery:
		b.WriteString(x.Kind)
		b.WriteString("(")
		fmtQuery(b, x.Query, h)
		b.WriteString(")")
	case *InExpr:
		fmtExpr(b, x.Expr, h)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		if x.Query != nil {
			fmtQuery(b, x.Query, h)
		} else {
			fmtList(b, x.List, h)
		}
		b.WriteString(")")
	case *Between:
		fmtExpr(b, x.Expr, h)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" BETWEEN ")
		fmtExpr(b, x.Lo, h)
		b.WriteString(" AND ")
		fmtExpr(b, x.Hi, h)
	case *Access:
		fmtExpr(b, x.Expr, h)
		switch x.Op {
		case "[":
			b.WriteString("[")
			fmtExpr(b, x.Index, h)
			b.WriteString("]")
		default:
			b.WriteString(x.Op)
			b.WriteString(x.Field)
		}
	case *List:
		b.WriteString(x.Kind)
		b.WriteString("(")
		for i, it := range x.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			if i < len(x.Names) {
				b.WriteString(x.Names[i])
				b.WriteString(": ")
			}
			fmtExpr(b, it, h)
		}
		b.WriteString(")")
	case *Lambda:
		b.WriteString("(" + strings.Join(x.Params, ", ") + ") -> ")
		fmtExpr(b, x.Body, h)
	case *Named:
		b.WriteString(x.Name)
		b.WriteString(" => ")
		fmtExpr(b, x.Value, h)
	}
}

func fmtQuery(b Writer, q *Query, h *hooks) {
	if h == nil || h.query == nil || !h.query(b, q) {
		b.WriteString("<subquery>")
	}
}

func fmtWindow(b Writer, w *WindowSpec, h *hooks) {
	if w.Name != "" {
		b.WriteString(w.Name)
		b.WriteString(" ")
	}
	if len(w.PartitionBy) > 0 {
		b.WriteString("PARTITION BY ")
		fmtList(b, w.PartitionBy, h)
		b.WriteString(" ")
	}
	if len(w.OrderBy) > 0 {
		b.WriteString("ORDER BY ")
		fmtOrder(b, w.OrderBy, h)
		b.WriteString(" ")
	}
	b.WriteString(w.Frame)
}

// writeUpperName writes strings.ToUpper(n.String()) without building it
// when n is ASCII.
func writeUpperName(b Writer, n Name) {
	for _, p := range n.Parts {
		for i := 0; i < len(p); i++ {
			if p[i] >= 0x80 {
				b.WriteString(strings.ToUpper(n.String()))
				return
			}
		}
	}
	for i, p := range n.Parts {
		if i > 0 {
			_ = b.WriteByte('.')
		}
		for j := 0; j < len(p); j++ {
			c := p[j]
			if c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			_ = b.WriteByte(c)
		}
	}
}
