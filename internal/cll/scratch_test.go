package cll

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestScratch(t *testing.T) {
	src, err := os.ReadFile("/tmp/scratch.sql")
	if err != nil {
		t.Skip()
	}
	schema := Schema{"x": {"a", "b"}, "y": {"b", "c"}, "z": {"a", "d"}}
	for _, q := range strings.Split(string(src), "\n---\n") {
		d := "generic"
		if strings.HasPrefix(q, "--") {
			d = strings.TrimSpace(strings.TrimPrefix(strings.SplitN(q, "\n", 2)[0], "--"))
		}
		ql, err := AnalyzeSQL(d, q, schema)
		b, _ := json.Marshal(CorpusShape(ql))
		t.Logf("\n%s\n=> %s err=%v opaque=%q", strings.TrimSpace(q), b, err, ql.OpaqueReason)
	}
}
