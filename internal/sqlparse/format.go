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

// FormatTo writes the canonical form of e to w; ref, when it returns true,
// replaces a column reference (used to substitute resolved lineage).
func FormatTo(w Writer, e Expr, ref RefFunc) {
	fmtExpr(w, e, ref)
}

func fmtList(b Writer, es []Expr, ref RefFunc) {
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		fmtExpr(b, e, ref)
	}
}

func fmtOrder(b Writer, items []OrderItem, ref RefFunc) {
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		fmtExpr(b, it.Expr, ref)
		if it.Desc {
			b.WriteString(" DESC")
		}
	}
}

func fmtExpr(b Writer, e Expr, ref RefFunc) {
	switch x := e.(type) {
	case nil:
		b.WriteString("NULL")
	case *ColumnRef:
		if ref != nil && ref(b, x) {
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
		fmtExpr(b, x.Value, ref)
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
		fmtList(b, x.Args, ref)
		if len(x.Seps) > 0 {
			b.WriteString(" /" + strings.Join(x.Seps, ",") + "/")
		}
		if len(x.OrderBy) > 0 {
			b.WriteString(" ORDER BY ")
			fmtOrder(b, x.OrderBy, ref)
		}
		b.WriteString(")")
		if len(x.WithinGroup) > 0 {
			b.WriteString(" WITHIN GROUP (ORDER BY ")
			fmtOrder(b, x.WithinGroup, ref)
			b.WriteString(")")
		}
		if x.Filter != nil {
			b.WriteString(" FILTER (WHERE ")
			fmtExpr(b, x.Filter, ref)
			b.WriteString(")")
		}
		if x.Over != nil {
			b.WriteString(" OVER (")
			fmtWindow(b, x.Over, ref)
			b.WriteString(")")
		}
	case *Binary:
		b.WriteString("(")
		fmtExpr(b, x.Left, ref)
		b.WriteString(" ")
		b.WriteString(x.Op)
		b.WriteString(" ")
		fmtExpr(b, x.Right, ref)
		b.WriteString(")")
	case *Unary:
		b.WriteString(x.Op)
		b.WriteString(" ")
		fmtExpr(b, x.Expr, ref)
	case *Case:
		b.WriteString("CASE")
		if x.Operand != nil {
			b.WriteString(" ")
			fmtExpr(b, x.Operand, ref)
		}
		for _, w := range x.Whens {
			b.WriteString(" WHEN ")
			fmtExpr(b, w[0], ref)
			b.WriteString(" THEN ")
			fmtExpr(b, w[1], ref)
		}
		if x.Else != nil {
			b.WriteString(" ELSE ")
			fmtExpr(b, x.Else, ref)
		}
		b.WriteString(" END")
	case *Cast:
		b.WriteString("CAST(")
		fmtExpr(b, x.Expr, ref)
		b.WriteString(" AS ")
		b.WriteString(x.Type)
		b.WriteString(")")
	case *Subquery:
		b.WriteString(x.Kind)
		b.WriteString("(<subquery>)")
	case *InExpr:
		fmtExpr(b, x.Expr, ref)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		if x.Query != nil {
			b.WriteString("<subquery>")
		} else {
			fmtList(b, x.List, ref)
		}
		b.WriteString(")")
	case *Between:
		fmtExpr(b, x.Expr, ref)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" BETWEEN ")
		fmtExpr(b, x.Lo, ref)
		b.WriteString(" AND ")
		fmtExpr(b, x.Hi, ref)
	case *Access:
		fmtExpr(b, x.Expr, ref)
		switch x.Op {
		case "[":
			b.WriteString("[")
			fmtExpr(b, x.Index, ref)
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
			fmtExpr(b, it, ref)
		}
		b.WriteString(")")
	case *Lambda:
		b.WriteString("(" + strings.Join(x.Params, ", ") + ") -> ")
		fmtExpr(b, x.Body, ref)
	case *Named:
		b.WriteString(x.Name)
		b.WriteString(" => ")
		fmtExpr(b, x.Value, ref)
	}
}

func fmtWindow(b Writer, w *WindowSpec, ref RefFunc) {
	if w.Name != "" {
		b.WriteString(w.Name)
		b.WriteString(" ")
	}
	if len(w.PartitionBy) > 0 {
		b.WriteString("PARTITION BY ")
		fmtList(b, w.PartitionBy, ref)
		b.WriteString(" ")
	}
	if len(w.OrderBy) > 0 {
		b.WriteString("ORDER BY ")
		fmtOrder(b, w.OrderBy, ref)
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
