// The analyzer: per-query resolver state and the entry points that run the
// stages over a parsed query (AnalyzeSQL) and shape the result.

package cll

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// analyzer holds per-query state.
type analyzer struct {
	d          sqlparse.Dialect
	schema     map[string][]string // lower-cased key -> columns
	schemaKeys []string
	// schemaList replaces schema and schemaKeys when set: the few
	// upstream relations of a project model (unique, normalised keys).
	schemaList []schemaEntry
	tables     []string
	// tableKeys are the lower-cased tables, to skip repeats.
	tableKeys  []string
	unresolved []string
	opaque     []string
	st         *ModelStructure
	depth      int
	// structure enables the text parts of ModelStructure; project analysis
	// skips them and rebuilds the structure on demand.
	structure bool
	// canon names a physical relation in digests. Project analysis maps
	// relations to node ids so that digests survive a change of target
	// schema between builds.
	canon func(table string) string
	// fw is the digest writer of digestCtx (a field so that passing it as
	// a sqlparse.Writer does not allocate).
	fw fnvWriter
	*resMem
}

func newAnalyzer(d sqlparse.Dialect, schema Schema) *analyzer {
	a := &analyzer{d: d, schema: make(map[string][]string, len(schema)), st: &ModelStructure{}, resMem: &resMem{}}
	a.structure = true
	for k, v := range schema {
		nk := normRel(k)
		a.schema[nk] = v
		a.schemaKeys = append(a.schemaKeys, nk)
	}
	sort.Strings(a.schemaKeys)
	return a
}

// AnalyzeSQL computes the column lineage of one query. On a syntax error
// it returns an opaque QueryLineage (reason = the error) and the error,
// which carries the line and column.
func AnalyzeSQL(dialect, sql string, schema Schema) (*QueryLineage, error) {
	d := sqlparse.LookupDialect(dialect)
	q, err := sqlparse.Parse(d, sql)
	if err != nil {
		reason, internal := parseFailure(err)
		ql := &QueryLineage{Dialect: d.Name, Opaque: true, OpaqueReason: reason, InternalError: internal,
			Columns: []OutputColumn{}, RowDeps: []ColumnRef{}, Tables: []string{},
			Structure: &ModelStructure{Unparseable: !internal, ParseError: err.Error()}}
		if internal {
			return ql, fmt.Errorf("analyze %s SQL: a bug in Ripple's parser, not in the SQL (please report it): %w", d.Name, err)
		}
		return ql, fmt.Errorf("parse %s SQL: %w", d.Name, err)
	}
	return analyzeParsed(d, q, schema, nil), nil
}

// parseFailure is the opaque reason for a failed parse, and whether the
// failure is a bug of the parser rather than of the SQL.
func parseFailure(err error) (reason string, internal bool) {
	var ie *sqlparse.InternalError
	if errors.As(err, &ie) {
		return "internal error while parsing SQL: " + err.Error(), true
	}
	return "unparseable SQL: " + err.Error(), false
}

// analysis is a resolved query before it is shaped for a caller.
type analysis struct {
	a            *analyzer
	rel          *relation
	opaqueReason string
	// internal is set when resolution panicked: a bug, not the SQL's fault.
	internal bool
}

// runAnalysis resolves q. Resolution must never take the process down on
// odd input, so a panic becomes an opaque result.
func runAnalysis(a *analyzer, q *sqlparse.Query) (res analysis) {
	res.a = a
	defer func() {
		if r := recover(); r != nil {
			res.rel = &relation{}
			res.opaqueReason = fmt.Sprintf("internal error while resolving lineage: %v", r)
			res.internal = true
		}
	}()
	rel := a.query(q, nil, nil)
	_, a.st.IsSetOperation = q.Body.(*sqlparse.SetOp)
	res.rel = rel
	for _, c := range rel.cols {
		if c.name == "*" {
			var ts []string
			for _, d := range c.l.deps {
				ts = append(ts, d.table)
			}
			a.opaque = append(a.opaque, "star over a relation with unknown columns: "+strings.Join(ts, ", "))
			break
		}
	}
	switch {
	case len(a.opaque) > 0:
		res.opaqueReason = a.opaque[0]
	case len(a.unresolved) > 0:
		res.opaqueReason = "unresolved reference: " + a.unresolved[0]
	}
	a.st.normalize()
	return res
}

func analyzeParsed(d sqlparse.Dialect, q *sqlparse.Query, schema Schema, canon func(string) string) *QueryLineage {
	a := newAnalyzer(d, schema)
	a.canon = canon
	a.structure = canon == nil
	res := runAnalysis(a, q)
	a, rel := res.a, res.rel
	ql := &QueryLineage{Dialect: d.Name, Columns: make([]OutputColumn, 0, len(rel.cols)), Tables: a.tables, RowDigest: Digest(rel.rowDigest),
		Opaque: res.opaqueReason != "", OpaqueReason: res.opaqueReason, InternalError: res.internal, Structure: a.st}
	if ql.Tables == nil {
		ql.Tables = []string{}
	}
	for _, c := range rel.cols {
		oc := OutputColumn{Name: c.name, Kind: c.l.kind, Digest: Digest(c.l.digest), Deps: toRefs(c.l.deps)}
		ql.Columns = append(ql.Columns, oc)
		p := Projection{Name: c.name, IsAggregate: c.l.kind == KindAggregate, IsDerived: c.l.kind == KindDerived || c.l.kind == KindAggregate, SourceColumns: []string{}}
		for _, r := range oc.Deps {
			p.SourceColumns = append(p.SourceColumns, r.String())
		}
		a.st.Projections = append(a.st.Projections, p)
	}
	a.st.normalize()
	ql.RowDeps = toRefs(dedupDeps(rel.rowDeps))
	return ql
}

func toRefs(ds []dep) []ColumnRef {
	ds = dedupDeps(ds)
	out := make([]ColumnRef, 0, len(ds))
	for _, d := range ds {
		out = append(out, ColumnRef{Table: d.table, Column: d.col, Confidence: d.conf})
	}
	return out
}

func (s *ModelStructure) normalize() *ModelStructure {
	nz := func(v []string) []string {
		if v == nil {
			return []string{}
		}
		return v
	}
	s.Refs, s.Filters, s.GroupBy, s.Having, s.OrderBy = nz(s.Refs), nz(s.Filters), nz(s.GroupBy), nz(s.Having), nz(s.OrderBy)
	if s.Projections == nil {
		s.Projections = []Projection{}
	}
	if s.Joins == nil {
		s.Joins = []JoinInfo{}
	}
	if s.Aggregations == nil {
		s.Aggregations = []Aggregation{}
	}
	return s
}
