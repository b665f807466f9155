// Memory arenas of the resolver: slabs for its most frequent objects, reset
// between analyses by a project worker.

package cll

import "github.com/ripple-data/ripple/internal/slab"

// resMem holds slabs for the most frequent resolution objects. Nothing a
// caller keeps points into it: results copy what they need. A worker
// resets it between analyses.
type resMem struct {
	lins    slab.Slab[lin]
	sources slab.Slab[source]
	rels    slab.Slab[relation]
	scopes  slab.Slab[scope]
	linBuf  slab.Slab[lin]
	depBuf  slab.Slab[dep]
	rcolBuf slab.Slab[rcol]
	u64Buf  slab.Slab[uint64]
	srcBuf  slab.Slab[*source]
	strBuf  slab.Slab[string]
	// depLists holds per-column dep lists while results are built.
	depLists slab.Slab[[]dep]
	// cteDefs and cteEnvs hold the WITH clauses' definitions and scopes.
	cteDefs slab.Slab[cteDef]
	cteEnvs slab.Slab[cteEnv]
	// memo remembers the resolution of each column reference of the
	// expression being analysed, so digesting does not resolve it again.
	memo []refLin
	// qmemo likewise remembers the digests of its subqueries.
	qmemo []queryDigest
}

// resBlock bounds the chunk size of resolution slabs.
const resBlock = 256

func (m *resMem) reset() {
	m.lins.Reset()
	m.sources.Reset()
	m.rels.Reset()
	m.scopes.Reset()
	m.linBuf.Reset()
	m.depBuf.Reset()
	m.rcolBuf.Reset()
	m.u64Buf.Reset()
	m.srcBuf.Reset()
	m.strBuf.Reset()
	m.depLists.Reset()
	m.cteDefs.Reset()
	m.cteEnvs.Reset()
	clear(m.memo)
	m.memo = m.memo[:0]
	clear(m.qmemo)
	m.qmemo = m.qmemo[:0]
}

func (a *analyzer) newLin(l lin) *lin {
	p := a.lins.Alloc(resBlock)
	*p = l
	return p
}

func (a *analyzer) newSource(s source) *source {
	p := a.sources.Alloc(resBlock)
	*p = s
	return p
}

func (a *analyzer) newRel() *relation { return a.rels.Alloc(resBlock) }

// appendRcols and appendDeps are append(dst, src...) growing into the slab;
// dst's spare capacity must be its own (slabs and acc hand out capped slices).
func (m *resMem) appendRcols(dst []rcol, src ...rcol) []rcol {
	if len(dst)+len(src) <= cap(dst) {
		return append(dst, src...)
	}
	nd := m.rcolBuf.Take(max(2*cap(dst), len(dst)+len(src), 4), 512)[:0]
	nd = append(nd, dst...)
	return append(nd, src...)
}

func (m *resMem) appendDeps(dst, src []dep) []dep {
	if len(dst)+len(src) <= cap(dst) {
		return append(dst, src...)
	}
	nd := m.depBuf.Take(max(2*cap(dst), len(dst)+len(src), 4), 512)[:0]
	nd = append(nd, dst...)
	return append(nd, src...)
}
