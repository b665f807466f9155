// Digests of computations (FNV-1a 64, stable across processes): columns,
// expressions with column references replaced by what they resolve to, and
// combinations of digests.

package cll

import (
	"github.com/ripple-data/ripple/internal/sqlparse"
)

func (a *analyzer) colDigest(table, col string) uint64 {
	w := a.tableDigestPrefix(table)
	return colDigestFrom(w, col)
}

// tableDigestPrefix is the digest state of "col:<table>.", shared by all
// columns of a relation.
func (a *analyzer) tableDigestPrefix(table string) fnvWriter {
	var w fnvWriter
	w.init()
	w.WriteString("col:")
	if a.canon != nil {
		w.WriteString(a.canon(table))
	} else {
		w.writeLower(table)
	}
	_ = w.WriteByte('.')
	return w
}

func colDigestFrom(w fnvWriter, col string) uint64 {
	w.writeLower(col)
	return w.h
}

// hashStr is FNV-1a 64 of s.
func hashStr(s string) uint64 {
	var w fnvWriter
	w.init()
	w.WriteString(s)
	return w.h
}

// fnvWriter digests canonical SQL text as it is written (FNV-1a 64), so
// digests cost no string building. Digests must be stable across
// processes, because base and current builds are compared.
type fnvWriter struct{ h uint64 }

func (w *fnvWriter) init() { w.h = 14695981039346656037 }

func (w *fnvWriter) WriteString(s string) (int, error) {
	h := w.h
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	w.h = h
	return len(s), nil
}

func (w *fnvWriter) WriteByte(c byte) error {
	w.h ^= uint64(c)
	w.h *= 1099511628211
	return nil
}

func (w *fnvWriter) writeLower(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		_ = w.WriteByte(c)
	}
}

func (w *fnvWriter) writeU64(v uint64) {
	for i := 0; i < 8; i++ {
		_ = w.WriteByte(byte(v >> (8 * i)))
	}
}

func writeDigest(wr sqlparse.Writer, v uint64) {
	_ = wr.WriteByte('{')
	for i := 0; i < 8; i++ {
		_ = wr.WriteByte(byte(v >> (8 * i)))
	}
	_ = wr.WriteByte('}')
}

// hashDigests combines digests with a tag.
func hashDigests(tag string, ds ...uint64) uint64 {
	var w fnvWriter
	w.init()
	w.WriteString(tag)
	for _, d := range ds {
		w.writeU64(d)
	}
	return w.h
}

// digestCtx digests an expression with every column reference replaced by
// the digest of what it resolves to, so aliases and formatting drop out.
func (a *analyzer) digestCtx(e sqlparse.Expr, ctx *exprCtx) uint64 {
	// Save and restore a.fw so that a nested digest cannot clobber ours.
	saved := a.fw
	a.fw.init()
	sqlparse.FormatTo(&a.fw, e, func(wr sqlparse.Writer, c *sqlparse.ColumnRef) bool {
		for i := len(a.memo) - 1; i >= 0; i-- {
			if a.memo[i].ref == c {
				writeDigest(wr, a.memo[i].l.digest)
				return true
			}
		}
		l, _ := a.resolveName(c, ctx)
		if l == nil {
			return false
		}
		writeDigest(wr, l.digest)
		return true
	}, func(wr sqlparse.Writer, q *sqlparse.Query) bool {
		// A subquery stands for what it computes: its outputs and rows.
		for i := len(a.qmemo) - 1; i >= 0; i-- {
			if a.qmemo[i].q == q {
				writeDigest(wr, a.qmemo[i].digest)
				return true
			}
		}
		return false
	})
	h := a.fw.h
	a.fw = saved
	return h
}

func (a *analyzer) digestExpr(e sqlparse.Expr, sc *scope) uint64 {
	return a.digestCtx(e, &exprCtx{sc: sc, aliases: sc.items})
}
