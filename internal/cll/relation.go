// The resolver's data model: a physical column reached (dep), the lineage of
// one column (lin), resolved relations, FROM scopes and CTE environments.

package cll

import (
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// dep is a physical column reached by lineage.
type dep struct {
	table, col string
	conf       Confidence
}

// lin is the lineage of one column of a relation.
type lin struct {
	deps []dep
	kind Kind
	// orig is the physical column name when kind is passthrough/renamed,
	// so that a later alias can be classified as a rename.
	orig   string
	digest uint64
}

// relation is a resolved FROM item or query result.
type relation struct {
	name     string // display name of a physical relation
	physical bool
	cols     []rcol
	// open relations are physical tables without a schema: any column
	// name is accepted as written.
	open bool
	// anyCol answers every name (table functions like UNNEST/FLATTEN,
	// whose element fields are not known).
	anyCol *lin
	// moreCols marks a relation with columns beyond cols, all with lineage
	// anyCol (a PIVOT whose value columns come from the data).
	moreCols bool
	// starFrom lists open relations whose columns flow through an
	// unexpanded star, so that outer queries can still name them.
	starFrom  []*relation
	rowDeps   []dep
	rowDigest uint64
	// dig, when set, digests the columns of an open relation.
	dig *analyzer
	// idx finds columns of a wide relation by name (see find).
	idx *nameIndex
}

type rcol struct {
	name string
	l    *lin
}

func (r *relation) find(name string) (*lin, bool) {
	if len(r.cols) >= indexMin {
		// Wide relations are indexed, so that resolving every column of
		// a 40,000-column select list is linear, not quadratic. The index
		// belongs to the cols it was built for: a copy of the relation
		// with other columns (renameCols) builds its own.
		if r.idx == nil || !r.idx.isFor(r.cols) {
			r.idx = newNameIndex(r.cols, func(c rcol) string { return c.name })
			r.idx.first = &r.cols[0]
		}
		if i, final := r.idx.lookup(name); final {
			if i < 0 {
				return nil, false
			}
			return r.cols[i].l, true
		}
	}
	for i := range r.cols {
		if equalFold(r.cols[i].name, name) {
			return r.cols[i].l, true
		}
	}
	return nil, false
}

// lookupWeak resolves a name the relation does not list explicitly.
func (r *relation) lookupWeak(name string) (*lin, Confidence, bool) {
	if r.anyCol != nil {
		return r.anyCol, Exact, true
	}
	if r.open {
		d := hashStr("col:" + strings.ToLower(r.name+"."+name))
		if r.dig != nil {
			d = r.dig.colDigest(r.name, name)
		}
		return &lin{deps: []dep{{table: r.name, col: name, conf: Exact}}, kind: KindPassthrough, orig: name, digest: d}, Exact, true
	}
	for _, s := range r.starFrom {
		if l, c, ok := s.lookupWeak(name); ok {
			if len(r.starFrom) > 1 {
				c = Inferred
			}
			return l, c, true
		}
	}
	return nil, "", false
}

func (r *relation) isKnown() bool { return !r.open && r.anyCol == nil && len(r.starFrom) == 0 }

// source is a relation in a FROM scope.
type source struct {
	// qualifiedOnly sources (aliased UNNEST/FLATTEN) answer unknown names
	// only when qualified: an unqualified name is not an element field.
	qualifiedOnly bool
	alias         string
	name          []string // table name parts for physical/CTE refs
	rel           *relation
	// usingOf maps a USING/NATURAL column (lower-cased) the source was
	// joined on to the merged column's lineage.
	usingOf map[string]*lin
}

type scope struct {
	sources []*source
	parent  *scope
	// using maps an unqualified USING/NATURAL column to its merged lineage.
	using map[string]*lin
	// items are the select list resolved so far (lateral aliases).
	items   []rcol
	windows map[string]*sqlparse.WindowSpec
	env     *cteEnv
}

type cteDef struct {
	name      string
	cte       *sqlparse.CTE
	env       *cteEnv
	recursive bool
	rel       *relation
	resolving bool
}

// cteEnv is a linked list of visible CTEs, innermost first; queries have
// few CTEs, so a list beats a map per scope.
type cteEnv struct {
	def    *cteDef
	parent *cteEnv
}

func (e *cteEnv) lookup(name string) *cteDef {
	for ; e != nil; e = e.parent {
		if equalFold(e.def.name, name) {
			return e.def
		}
	}
	return nil
}

func dedupDeps(ds []dep) []dep { return dedupDepsIn(ds, nil) }

// dedupDepsIn is dedupDeps taking the output storage from mem when set.
func dedupDepsIn(ds []dep, mem *resMem) []dep {
	if len(ds) <= 1 {
		return ds
	}
	if len(ds) > indexMin {
		// A long list (the row deps of a wide GROUP BY ALL, a whole row of
		// a wide table): a map keeps dedup linear.
		if out, ok := dedupDepsMap(ds, mem); ok {
			return out
		}
	}
	// Dep lists are short; a quadratic scan beats building a map. Most
	// have no duplicate: return them as they are (deps are never written
	// in place, so sharing is safe).
	if !hasDupDeps(ds) {
		return ds
	}
	var out []dep
	if mem != nil {
		out = mem.depBuf.Take(len(ds), 512)[:0]
	} else {
		out = make([]dep, 0, len(ds))
	}
next:
	for _, d := range ds {
		for i := range out {
			if out[i].col == d.col && out[i].table == d.table || equalFold(out[i].col, d.col) && equalFold(out[i].table, d.table) {
				// Keep the best confidence seen for an edge.
				if d.conf == Exact || d.conf == Inferred && out[i].conf == Unknown {
					out[i].conf = d.conf
				}
				continue next
			}
		}
		out = append(out, d)
	}
	return out
}

// dedupDepsMap is dedupDepsIn for ASCII names, by map; ok is false when a
// name is not ASCII (equalFold then decides, by scan).
func dedupDepsMap(ds []dep, mem *resMem) ([]dep, bool) {
	at := make(map[string]int, len(ds))
	var buf [256]byte
	keys := make([]string, len(ds))
	dup := false
	for i, d := range ds {
		k, ok := lowerASCII(buf[:0], d.table)
		if ok {
			k = append(k, 0)
			k, ok = lowerASCII(k, d.col)
		}
		if !ok {
			return nil, false
		}
		keys[i] = string(k)
		if _, seen := at[keys[i]]; seen {
			dup = true
		} else {
			at[keys[i]] = -1
		}
	}
	if !dup {
		return ds, true
	}
	var out []dep
	if mem != nil {
		out = mem.depBuf.Take(len(ds), 512)[:0]
	} else {
		out = make([]dep, 0, len(ds))
	}
	for i, d := range ds {
		if j := at[keys[i]]; j >= 0 {
			// Keep the best confidence seen for an edge.
			if d.conf == Exact || d.conf == Inferred && out[j].conf == Unknown {
				out[j].conf = d.conf
			}
			continue
		}
		at[keys[i]] = len(out)
		out = append(out, d)
	}
	return out, true
}

func hasDupDeps(ds []dep) bool {
	for j := 1; j < len(ds); j++ {
		d := ds[j]
		for i := 0; i < j; i++ {
			if ds[i].col == d.col && ds[i].table == d.table || equalFold(ds[i].col, d.col) && equalFold(ds[i].table, d.table) {
				return true
			}
		}
	}
	return false
}
