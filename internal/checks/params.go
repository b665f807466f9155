package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// Run types known to Ripple. Checks may only be created for these types.
const (
	TypeRowCount        = "row_count"
	TypeRowCountDiff    = "row_count_diff"
	TypeQuery           = "query"
	TypeQueryBase       = "query_base"
	TypeQueryDiff       = "query_diff"
	TypeProfile         = "profile"
	TypeProfileDiff     = "profile_diff"
	TypeValueDiff       = "value_diff"
	TypeValueDiffDetail = "value_diff_detail"
	TypeTopKDiff        = "top_k_diff"
	TypeHistogramDiff   = "histogram_diff"
	TypeLineageDiff     = "lineage_diff"
	TypeSchemaDiff      = "schema_diff"
)

// paramKind is the JSON shape a parameter must have.
type paramKind int

const (
	kindString paramKind = iota
	kindStringList
	kindStringOrList // a string or a non-empty list of strings
	kindInt
	kindBool
	kindAny
)

func (k paramKind) String() string {
	switch k {
	case kindString:
		return "a string"
	case kindStringList:
		return "a list of strings"
	case kindStringOrList:
		return "a string or a non-empty list of strings"
	case kindInt:
		return "an integer"
	case kindBool:
		return "a boolean"
	}
	return "any value"
}

type paramSpec struct {
	kind     paramKind
	required bool
	enum     []string // allowed string values when non-empty
}

func with(base map[string]paramSpec, extra map[string]paramSpec) map[string]paramSpec {
	m := make(map[string]paramSpec, len(base)+len(extra))
	for k, v := range base {
		m[k] = v
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// typeSpecs returns the parameter rules per run type. It is a function (not a package variable)
// so there is no package-level mutable state.
// The names match the input fields of the operation of the same name.
func typeSpecs() map[string]map[string]paramSpec {
	selectorParams := map[string]paramSpec{
		"select":    {kind: kindString},
		"exclude":   {kind: kindString},
		"packages":  {kind: kindStringList},
		"view_mode": {kind: kindString, enum: []string{"all", "changed_models"}},
	}
	rowCount := map[string]paramSpec{
		"select":     {kind: kindString},
		"exclude":    {kind: kindString},
		"node_names": {kind: kindStringList},
		"node_ids":   {kind: kindStringList},
	}
	query := map[string]paramSpec{"sql": {kind: kindString, required: true}, "base": {kind: kindBool}}
	modelCols := map[string]paramSpec{
		"model":   {kind: kindString, required: true},
		"columns": {kind: kindStringList},
	}
	valueDiff := with(modelCols, map[string]paramSpec{"primary_key": {kind: kindStringOrList, required: true}})
	column := map[string]paramSpec{
		"model":       {kind: kindString, required: true},
		"column_name": {kind: kindString, required: true},
	}
	return map[string]map[string]paramSpec{
		TypeRowCount:     rowCount,
		TypeRowCountDiff: rowCount,
		TypeQuery:        query,
		TypeQueryBase:    query,
		TypeQueryDiff: {
			"sql":          {kind: kindString, required: true},
			"base_sql":     {kind: kindString},
			"primary_keys": {kind: kindStringList},
		},
		TypeProfile:         modelCols,
		TypeProfileDiff:     modelCols,
		TypeValueDiff:       valueDiff,
		TypeValueDiffDetail: with(valueDiff, map[string]paramSpec{"limit": {kind: kindInt}}),
		TypeTopKDiff:        with(column, map[string]paramSpec{"k": {kind: kindInt}}),
		TypeHistogramDiff:   with(column, map[string]paramSpec{"num_bins": {kind: kindInt}}),
		TypeLineageDiff:     selectorParams,
		TypeSchemaDiff: {
			"select":   {kind: kindString},
			"exclude":  {kind: kindString},
			"node_ids": {kind: kindStringList},
			"limit":    {kind: kindInt},
		},
	}
}

// KnownTypes lists the run types checks can be created for, sorted.
func KnownTypes() []string {
	specs := typeSpecs()
	out := make([]string, 0, len(specs))
	for t := range specs {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// ParamError is a validation failure of one parameter (Param is "" when the whole params value is wrong).
type ParamError struct {
	Type  string
	Param string
	Msg   string
}

func (e *ParamError) Error() string {
	if e.Param == "" {
		return fmt.Sprintf("%s: %s", e.Type, e.Msg)
	}
	return fmt.Sprintf("%s: param %q %s", e.Type, e.Param, e.Msg)
}

// ErrUnknownType is wrapped by errors for run types Ripple does not know.
var ErrUnknownType = errors.New("unknown check type")

// ValidateParams checks typ is a known run type and params is a JSON object (null/empty = {}) whose
// parameters have the right shapes, with every required parameter present. Unknown parameters are
// accepted (operations may grow), except near-misses of a known name ("primary_keys" for value_diff),
// which are reported with a suggestion because they would otherwise be silently ignored.
func ValidateParams(typ string, params json.RawMessage) error {
	specs, ok := typeSpecs()[typ]
	if !ok {
		return fmt.Errorf("%w %q: use one of %s", ErrUnknownType, typ, strings.Join(KnownTypes(), ", "))
	}
	obj, err := paramsObject(params)
	if err != nil {
		return &ParamError{Type: typ, Msg: err.Error()}
	}
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		spec := specs[n]
		raw, present := obj[n]
		if !present || isNull(raw) {
			if spec.required {
				return &ParamError{Type: typ, Param: n, Msg: "is required (" + spec.kind.String() + ")"}
			}
			continue
		}
		if msg := checkKind(raw, spec); msg != "" {
			return &ParamError{Type: typ, Param: n, Msg: msg}
		}
	}
	given := make([]string, 0, len(obj))
	for n := range obj {
		given = append(given, n)
	}
	sort.Strings(given)
	for _, n := range given {
		if _, known := specs[n]; known {
			continue
		}
		for _, k := range names {
			if nearMiss(n, k) {
				return &ParamError{Type: typ, Param: n, Msg: fmt.Sprintf("is not a parameter of %s (did you mean %q?)", typ, k)}
			}
		}
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func paramsObject(params json.RawMessage) (map[string]json.RawMessage, error) {
	t := bytes.TrimSpace(params)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return map[string]json.RawMessage{}, nil
	}
	if t[0] != '{' {
		return nil, errors.New("params must be a JSON object, e.g. {\"model\": \"orders\"}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(t, &obj); err != nil {
		return nil, fmt.Errorf("params are not valid JSON: %w", err)
	}
	return obj, nil
}

func checkKind(raw json.RawMessage, spec paramSpec) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return "is not valid JSON"
	}
	switch spec.kind {
	case kindString:
		s, ok := v.(string)
		if !ok {
			return "must be " + spec.kind.String()
		}
		if len(spec.enum) > 0 && !contains(spec.enum, s) {
			return fmt.Sprintf("must be one of %s, got %q", strings.Join(spec.enum, ", "), s)
		}
	case kindStringList:
		if !isStringList(v) {
			return "must be " + spec.kind.String()
		}
	case kindStringOrList:
		if s, ok := v.(string); ok {
			if strings.TrimSpace(s) == "" {
				return "must not be empty"
			}
			return ""
		}
		if l, ok := v.([]any); !ok || len(l) == 0 || !isStringList(v) {
			return "must be " + spec.kind.String()
		}
	case kindInt:
		n, ok := v.(json.Number)
		if !ok {
			return "must be " + spec.kind.String()
		}
		if _, err := n.Int64(); err != nil {
			return "must be " + spec.kind.String()
		}
	case kindBool:
		if _, ok := v.(bool); !ok {
			return "must be " + spec.kind.String()
		}
	}
	return ""
}

func isStringList(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range l {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

// nearMiss reports a likely typo: same name modulo case/underscores/plural, or edit distance 1.
func nearMiss(a, b string) bool {
	norm := func(s string) string {
		return strings.TrimSuffix(strings.ReplaceAll(strings.ToLower(s), "_", ""), "s")
	}
	if norm(a) == norm(b) {
		return true
	}
	return len(a) > 3 && dbt.EditDistance(a, b) == 1
}

// CanonicalParams returns params as compact JSON with object keys sorted at every level and
// null/empty input as {}. Numbers keep their literal text. Two params values that are equal as
// JSON produce identical bytes, which is what makes check creation idempotent.
func CanonicalParams(params json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(params)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(t))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("params are not valid JSON: %w", err)
	}
	if d.More() {
		return nil, errors.New("params contain trailing data after the JSON value")
	}
	// encoding/json sorts map keys and writes json.Number verbatim; HTML escaping is off so SQL
	// templates stay readable in the state file.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("canonicalising params: %w", err)
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}
