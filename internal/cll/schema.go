// Upstream schemas: looking a relation up as written (shorter or longer than
// the schema key), column case folding, and the tables a query reads.

package cll

import (
	"slices"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

type schemaEntry struct {
	key  string
	cols []string
}

// seeTable records a table read; it reports false for a repeat.
func (a *analyzer) seeTable(lname string) bool {
	if slices.Contains(a.tableKeys, lname) {
		return false
	}
	if a.tableKeys == nil {
		a.tableKeys = a.strBuf.Take(4, 256)[:0]
	}
	a.tableKeys = append(a.tableKeys, lname)
	return true
}

func (a *analyzer) lookupSchema(name string) ([]string, bool) {
	n := normRel(name)
	if a.schemaList != nil {
		for _, e := range a.schemaList {
			if e.key == n {
				return e.cols, true
			}
		}
		var found []string
		hits := 0
		for _, e := range a.schemaList {
			if hasDotSuffix(e.key, n) || hasDotSuffix(n, e.key) {
				found = e.cols
				hits++
			}
		}
		if hits == 1 {
			return found, true
		}
		return nil, false
	}
	if cols, ok := a.schema[n]; ok {
		return cols, true
	}
	// Names may be written shorter or longer than the schema key.
	var found []string
	hits := 0
	for _, k := range a.schemaKeys {
		if hasDotSuffix(k, n) || hasDotSuffix(n, k) {
			found = a.schema[k]
			hits++
		}
	}
	if hits == 1 {
		return found, true
	}
	return nil, false
}

func (a *analyzer) foldCol(c string) string {
	if a.d.Fold == sqlparse.FoldNone {
		return c
	}
	if strings.ToLower(c) == c || strings.ToUpper(c) == c {
		return a.d.FoldIdent(c)
	}
	return c
}
