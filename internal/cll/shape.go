package cll

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// CorpusColumn is one output column in the corpus/CLI shape.
type CorpusColumn struct {
	Deps []string `json:"deps"`
	Kind string   `json:"kind"`
}

// CorpusResult is the shape `ripple sql-lineage --json` prints:
// {"columns": {"<out>": {"deps": ["<table>.<col>"], "kind": "..."}}, "row_deps": [...]}
// with columns in output order. Opaque and OpaqueReason are not part of the
// JSON (the shape is fixed); callers report them separately.
type CorpusResult struct {
	Names        []string
	Columns      map[string]CorpusColumn
	RowDeps      []string
	Opaque       bool
	OpaqueReason string
}

// CorpusShape converts a QueryLineage to the corpus/CLI shape. The
// aggregate kind is reported as derived there, as peer tools do.
func CorpusShape(q *QueryLineage) *CorpusResult {
	r := &CorpusResult{Columns: map[string]CorpusColumn{}, RowDeps: []string{}, Opaque: q.Opaque, OpaqueReason: q.OpaqueReason}
	for _, c := range q.Columns {
		deps := make([]string, 0, len(c.Deps))
		for _, d := range c.Deps {
			deps = append(deps, d.String())
		}
		sort.Strings(deps)
		kind := string(c.Kind)
		if c.Kind == KindAggregate {
			kind = string(KindDerived)
		}
		name := c.Name
		// JSON keys must be unique; number repeats as engines do.
		for i := 1; ; i++ {
			if _, dup := r.Columns[name]; !dup {
				break
			}
			name = fmt.Sprintf("%s_%d", c.Name, i)
		}
		r.Names = append(r.Names, name)
		r.Columns[name] = CorpusColumn{Deps: deps, Kind: kind}
	}
	for _, d := range q.RowDeps {
		r.RowDeps = append(r.RowDeps, d.String())
	}
	sort.Strings(r.RowDeps)
	return r
}

// MarshalJSON writes columns as an object in output order.
func (r *CorpusResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"columns":{`)
	for i, n := range r.Names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(n)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(r.Columns[n])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteString(`},"row_deps":`)
	rd, err := json.Marshal(r.RowDeps)
	if err != nil {
		return nil, err
	}
	b.Write(rd)
	if r.Opaque {
		// An opaque result's columns are not lineage: say so in the JSON
		// too (the text and the exit code already do).
		reason, err := json.Marshal(r.OpaqueReason)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"opaque":true,"opaque_reason":`)
		b.Write(reason)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
