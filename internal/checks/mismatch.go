package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Mismatch is the CI verdict for one run result: true when the diff found differences between
// base and current. It reads the result loosely (only the fields named below, tolerant of extra
// fields and of wrappers) so it survives small changes to the operations' result shapes. Rules:
//
//   - row_count_diff: the per-model map, the result itself or under "models" / "results":
//     {"<model>": {"base": n|null, "current"|"curr": n|null, ...}}. Mismatch when any model has
//     base != current, including a count on one side and null on the other (added/removed
//     table). Both null (table missing in both) is not a mismatch.
//   - value_diff: "summary" (or the top level) {added, removed, changed|mismatched|modified}: any
//     > 0 is a mismatch. Also a mismatch when a per-column entry under "data"/"columns" reports
//     matched_p < 1 (as a list of objects or a {columns, data} table).
//   - value_diff_detail: any differing row (the result array, or "rows"/"data"/"diff").
//   - query_diff: when "diff" is present and not null, any row in it; otherwise "base" and
//     "current" (or "curr") compared as JSON values.
//   - profile_diff, top_k_diff, histogram_diff: "base" and "current" compared as JSON values
//     (numbers compared numerically).
//   - schema_diff: a non-empty list of changes: the result array, any "changes" array found
//     in the result, or the rows of a "changes" frame {columns, data}; when there is none, any object with a non-empty "change_status".
//   - lineage_diff: any object (node or edge) anywhere in the result with a non-empty
//     "change_status".
//   - row_count, query, query_base, profile (single environment): never a mismatch.
//
// An unknown type, or a result that is empty or not JSON, is an error.
func Mismatch(typ string, result json.RawMessage) (bool, error) {
	if _, ok := typeSpecs()[typ]; !ok {
		return false, fmt.Errorf("%w %q: no mismatch rule", ErrUnknownType, typ)
	}
	if !hasVerdict(typ) {
		return false, nil
	}
	t := bytes.TrimSpace(result)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return false, fmt.Errorf("%s: run has no result to judge", typ)
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(t))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return false, fmt.Errorf("%s: result is not valid JSON: %w", typ, err)
	}
	switch typ {
	case TypeRowCountDiff:
		return rowCountMismatch(v), nil
	case TypeValueDiff:
		return valueDiffMismatch(v), nil
	case TypeValueDiffDetail:
		return rowsIn(v) > 0, nil
	case TypeQueryDiff:
		if obj, ok := v.(map[string]any); ok {
			if diff, ok := obj["diff"]; ok && diff != nil {
				return rowsIn(diff) > 0, nil
			}
		}
		return sidesDiffer(v), nil
	case TypeProfileDiff, TypeTopKDiff, TypeHistogramDiff:
		return sidesDiffer(v), nil
	case TypeSchemaDiff:
		if l, ok := v.([]any); ok {
			return len(l) > 0, nil
		}
		if found, nonEmpty := findChanges(v); found {
			return nonEmpty, nil
		}
		return anyChangeStatus(v), nil
	case TypeLineageDiff:
		return anyChangeStatus(v), nil
	}
	return false, nil
}

// hasVerdict reports whether Mismatch can say anything about typ (two-environment diffs only).
func hasVerdict(typ string) bool {
	switch typ {
	case TypeRowCount, TypeQuery, TypeQueryBase, TypeProfile:
		return false
	}
	_, ok := typeSpecs()[typ]
	return ok
}

func rowCountMismatch(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, key := range []string{"results", "models"} {
		if inner, ok := obj[key].(map[string]any); ok {
			obj = inner
		}
	}
	for _, e := range obj {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		base, hasBase := m["base"]
		cur, hasCur := m["current"]
		if !hasCur {
			cur, hasCur = m["curr"]
		}
		if !hasBase && !hasCur {
			continue
		}
		if !jsonEqual(base, cur) {
			return true
		}
	}
	return false
}

func valueDiffMismatch(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	summary := obj
	if s, ok := obj["summary"].(map[string]any); ok {
		summary = s
	}
	for _, k := range []string{"added", "removed", "changed", "mismatched", "modified"} {
		if n, ok := number(summary[k]); ok && n > 0 {
			return true
		}
	}
	for _, k := range []string{"data", "columns"} {
		if matchedBelowOne(obj[k]) {
			return true
		}
	}
	return false
}

// matchedBelowOne finds matched_p < 1 in a list of objects or a {columns, data} table.
func matchedBelowOne(v any) bool {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				if p, ok := number(m["matched_p"]); ok && p < 1 {
					return true
				}
			}
		}
	case map[string]any:
		cols, _ := t["columns"].([]any)
		col := -1
		for i, c := range cols {
			name, _ := c.(string)
			if m, ok := c.(map[string]any); ok {
				for _, k := range []string{"name", "key"} {
					if s, ok := m[k].(string); ok {
						name = s
						break
					}
				}
			}
			if name == "matched_p" {
				col = i
			}
		}
		if col < 0 {
			return matchedBelowOne(t["data"]) || matchedBelowOne(t["rows"])
		}
		for _, key := range []string{"data", "rows"} {
			rows, _ := t[key].([]any)
			for _, r := range rows {
				if cells, ok := r.([]any); ok && col < len(cells) {
					if p, ok := number(cells[col]); ok && p < 1 {
						return true
					}
				}
			}
		}
	}
	return false
}

// rowsIn counts rows in a list or a data-frame-like object ({rows|data: [...]} or {diff: ...}).
func rowsIn(v any) int {
	switch t := v.(type) {
	case []any:
		return len(t)
	case map[string]any:
		for _, k := range []string{"rows", "data", "diff"} {
			if inner, ok := t[k]; ok && inner != nil {
				return rowsIn(inner)
			}
		}
	}
	return 0
}

func sidesDiffer(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	cur, ok := obj["current"]
	if !ok {
		cur = obj["curr"]
	}
	return !jsonEqual(obj["base"], cur)
}

// findChanges reports whether a "changes" key exists anywhere, and whether any such list is non-empty.
func findChanges(v any) (found, nonEmpty bool) {
	switch t := v.(type) {
	case map[string]any:
		if c, ok := t["changes"]; ok {
			found = true
			if l, ok := c.([]any); ok && len(l) > 0 {
				return true, true
			}
			if m, ok := c.(map[string]any); ok {
				// A frame {columns, data}: its rows are the changes.
				if data, isFrame := m["data"].([]any); isFrame {
					return true, len(data) > 0
				}
				if len(m) > 0 {
					return true, true
				}
			}
		}
		for k, e := range t {
			if k == "changes" {
				continue
			}
			f, n := findChanges(e)
			found = found || f
			if n {
				return true, true
			}
		}
	case []any:
		for _, e := range t {
			f, n := findChanges(e)
			found = found || f
			if n {
				return true, true
			}
		}
	}
	return found, false
}

func anyChangeStatus(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		if s, ok := t["change_status"].(string); ok && strings.TrimSpace(s) != "" {
			return true
		}
		for _, e := range t {
			if anyChangeStatus(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if anyChangeStatus(e) {
				return true
			}
		}
	}
	return false
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	}
	return 0, false
}

// jsonEqual compares decoded JSON values; numbers compare numerically (1 == 1.0).
func jsonEqual(a, b any) bool {
	na, aNum := number(a)
	nb, bNum := number(b)
	if aNum || bNum {
		return aNum && bNum && (na == nb || (math.IsNaN(na) && math.IsNaN(nb)))
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}
