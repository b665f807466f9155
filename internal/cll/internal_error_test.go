package cll

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// TestInternalErrorsAreNotUserSQL: a bug of the parser or the resolver makes
// the result opaque under an "internal error" reason and is counted apart
// (ProjectStats.InternalErrors); a syntax error stays "unparseable SQL".
func TestInternalErrorsAreNotUserSQL(t *testing.T) {
	t.Run("syntax error", func(t *testing.T) {
		ql, err := AnalyzeSQL("generic", "select from where", nil)
		if err == nil || !ql.Opaque || ql.InternalError || !strings.HasPrefix(ql.OpaqueReason, "unparseable SQL: ") || !ql.Structure.Unparseable {
			t.Fatalf("err=%v opaque=%v internal=%v reason=%q", err, ql.Opaque, ql.InternalError, ql.OpaqueReason)
		}
	})
	t.Run("parser bug", func(t *testing.T) {
		reason, internal := parseFailure(&sqlparse.InternalError{Pos: sqlparse.Pos{Line: 1, Col: 8}, Panic: "index out of range"})
		if !internal || reason != "internal error while parsing SQL: line 1, column 8: internal parser error: index out of range" {
			t.Fatalf("reason %q internal %v", reason, internal)
		}
		if _, internal := parseFailure(&sqlparse.Error{Pos: sqlparse.Pos{Line: 1, Col: 1}, Msg: "x"}); internal {
			t.Fatal("a syntax error counted as internal")
		}
	})
	t.Run("resolver bug", func(t *testing.T) {
		q, err := sqlparse.Parse(sqlparse.LookupDialect("generic"), "select a from t")
		if err != nil {
			t.Fatal(err)
		}
		// An analyzer without its arenas panics on its first allocation:
		// a real panic inside a resolver stage.
		res := runAnalysis(&analyzer{st: &ModelStructure{}}, q)
		if !res.internal || !strings.HasPrefix(res.opaqueReason, "internal error while resolving lineage: ") {
			t.Fatalf("internal=%v reason=%q", res.internal, res.opaqueReason)
		}
	})
	t.Run("project statistics", func(t *testing.T) {
		st := ProjectStats{Reasons: map[string]int{}}
		st.count(&ModelLineage{Opaque: true, OpaqueReason: "unparseable SQL: line 1, column 1: x"}, false)
		st.count(&ModelLineage{Opaque: true, OpaqueReason: "internal error while parsing SQL: line 1, column 8: internal parser error: boom", InternalError: true}, false)
		st.count(&ModelLineage{Opaque: true, OpaqueReason: "internal error while resolving lineage: boom", InternalError: true}, true)
		st.count(&ModelLineage{}, true)
		want := ProjectStats{Opaque: 3, Analyzed: 2, Cached: 2, InternalErrors: 2, Reasons: map[string]int{
			"unparseable SQL": 1, "internal error while parsing SQL": 1, "internal error while resolving lineage": 1}}
		if !reflect.DeepEqual(st, want) {
			t.Fatalf("got %+v, want %+v", st, want)
		}
	})
}
