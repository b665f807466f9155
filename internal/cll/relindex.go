// The relation index: relation names as written in SQL matched to manifest
// nodes (parents first), and catalog columns per node.

package cll

import (
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// relIndex matches relation names written in SQL to manifest nodes.
type relIndex struct {
	full  map[string]string // db.schema.alias and relation_name
	short map[string]shortRef
	keys  map[string][]string // node id -> its relation keys
	// catalog caches catalog column names per node id.
	catalog map[string]catalogCols
}

func relKeys(n *dbt.Node) []string { return appendRelKeys(nil, n) }

// appendRelKeys appends n's relation keys to keys.
func appendRelKeys(keys []string, n *dbt.Node) []string {
	if n.RelationName != "" {
		keys = append(keys, normRel(n.RelationName))
	}
	id := n.RelationIdentifier()
	if n.Database != "" && n.Schema != "" {
		full := normRel(n.Database + "." + n.Schema + "." + id)
		keys = append(keys, full)
		// When normalising changed nothing, schema.id is a suffix of
		// db.schema.id: share it rather than build it again.
		if isDotted3(full, n.Database, n.Schema, id) {
			if k := full[len(n.Database)+1:]; k == normRel(k) {
				return append(keys, k)
			}
		}
	}
	if n.Schema != "" {
		keys = append(keys, normRel(n.Schema+"."+id))
	}
	return keys
}

// isDotted3 reports whether s is a+"."+b+"."+c, without building it.
func isDotted3(s, a, b, c string) bool {
	if len(s) != len(a)+len(b)+len(c)+2 {
		return false
	}
	j := len(a) + 1 + len(b)
	return s[:len(a)] == a && s[len(a)] == '.' && s[len(a)+1:j] == b && s[j] == '.' && s[j+1:] == c
}

// shortRef is the node with a relation identifier, or many when several
// nodes share it.
type shortRef struct {
	id   string
	many bool
}

func newRelIndex(m *dbt.Manifest) *relIndex {
	all := m.AllNodes()
	ri := &relIndex{full: make(map[string]string, 3*len(all)), short: make(map[string]shortRef, len(all)),
		keys: make(map[string][]string, len(all)), catalog: map[string]catalogCols{}}
	// One array for every node's keys; capped sub-slices keep them apart.
	buf := make([]string, 0, 3*len(all))
	// Map order is fine: a key shared by several nodes goes to the least
	// id, as if the ids were visited in sorted order.
	for id, n := range all {
		switch n.ResourceType {
		case dbt.Model, dbt.Seed, dbt.Snapshot, dbt.Source:
		default:
			continue
		}
		start := len(buf)
		buf = appendRelKeys(buf, n)
		keys := buf[start:len(buf):len(buf)]
		ri.keys[id] = keys
		for _, k := range keys {
			if cur, ok := ri.full[k]; !ok || id < cur {
				ri.full[k] = id
			}
		}
		s := strings.ToLower(n.RelationIdentifier())
		if r, ok := ri.short[s]; ok {
			r.many = true
			ri.short[s] = r
		} else {
			ri.short[s] = shortRef{id: id}
		}
	}
	return ri
}

// match finds the node for a relation as written, preferring parents.
func (ri *relIndex) match(written string, parents []upstream) string {
	w := normRel(written)
	for _, u := range parents {
		for _, k := range u.keys {
			if k == w || len(k) > len(w) && k[len(k)-len(w)-1] == '.' && k[len(k)-len(w):] == w {
				return u.id
			}
		}
	}
	if id, ok := ri.full[w]; ok {
		return id
	}
	last := w
	if i := strings.LastIndexByte(w, '.'); i >= 0 {
		last = w[i+1:]
	}
	if r, ok := ri.short[last]; ok && !r.many {
		return r.id
	}
	return ""
}

func catalogColumns(env *dbt.Env, id string) []string {
	ce, ok := env.Catalog.Entry(id)
	if !ok || len(ce.Columns) == 0 {
		return nil
	}
	cols := ce.SortedColumns()
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}
