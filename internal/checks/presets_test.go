package checks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testValidator stands in for the operation registry's validation (ops tests run the real one).
func testValidator(typ string, params json.RawMessage) (json.RawMessage, error) {
	var p map[string]any
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &ParamError{Type: typ, Msg: err.Error()}
	}
	need := map[string]string{TypeValueDiff: "primary_key", TypeQueryDiff: "sql_template"}
	switch typ {
	case TypeValueDiff, TypeQueryDiff, TypeSchemaDiff, TypeLineageDiff, TypeHistogramDiff, TypeRowCountDiff:
	case TypeTopKDiff:
		if k, ok := p["k"]; ok {
			if _, isNum := k.(float64); !isNum {
				return nil, &ParamError{Type: typ, Param: "k", Msg: "must be an integer"}
			}
		}
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownType, typ)
	}
	if n := need[typ]; n != "" && p[n] == nil {
		return nil, &ParamError{Type: typ, Param: n, Msg: "is required"}
	}
	return params, nil
}

func TestLoadPresetsCreatesDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), DefaultConfigFile)
	presets, created, err := LoadPresets(context.Background(), path, nil)
	if err != nil || !created {
		t.Fatalf("LoadPresets = %v, created %v", err, created)
	}
	want := []Preset{
		{Name: "Row count diff", Description: "Check the row count diff for all modified table models.", Type: TypeRowCountDiff, Params: json.RawMessage(`{"select":"state:modified,config.materialized:table"}`)},
		{Name: "Schema diff", Description: "Check the schema diff for all modified nodes.", Type: TypeSchemaDiff, Params: json.RawMessage(`{"select":"state:modified"}`)},
	}
	if len(presets) != len(want) {
		t.Fatalf("presets = %+v", presets)
	}
	for i := range want {
		if presets[i].Name != want[i].Name || presets[i].Description != want[i].Description || presets[i].Type != want[i].Type || string(presets[i].Params) != string(want[i].Params) {
			t.Errorf("preset %d = %+v (params %s), want %+v", i, presets[i], presets[i].Params, want[i])
		}
	}
	if data, _ := os.ReadFile(path); string(data) != DefaultConfig {
		t.Fatalf("written file = %q", data)
	}
	// Second load reads the file, does not rewrite it.
	if _, created, err := LoadPresets(context.Background(), path, nil); err != nil || created {
		t.Fatalf("second LoadPresets = %v, created %v", err, created)
	}
	// Applying twice is idempotent and marks presets.
	s := newTestStore(t)
	for range 2 {
		checks, err := s.ApplyPresets(context.Background(), presets)
		if err != nil || len(checks) != 2 || !checks[0].IsPreset {
			t.Fatalf("ApplyPresets = %+v, %v", checks, err)
		}
	}
	if n := s.List(time.Time{}).Total; n != 2 {
		t.Fatalf("%d checks after applying twice", n)
	}
}

func TestParsePresetsValidation(t *testing.T) {
	cases := []struct {
		name string
		yml  string
		want []string // each must appear in the error
	}{
		{"unknown type", `
checks:
  - name: Orders
    type: row_count_dif
`, []string{`line 4: checks[0] "Orders" field type: unknown check type "row_count_dif"`}},
		{"params not an object", `
checks:
  - name: Orders
    type: value_diff
    params: [model, orders]
`, []string{`line 5: checks[0] "Orders" field params: params must be a mapping`}},
		{"missing primary key", `
checks:
  - name: ok
    type: schema_diff
  - name: Orders values
    type: value_diff
    params:
      model: orders
`, []string{`line 7: checks[1] "Orders values" field params: value_diff: param "primary_key" is required`}},
		{"wrong param type points at the param", `
checks:
  - name: Top
    type: top_k_diff
    params:
      model: orders
      column_name: status
      k: ten
`, []string{`line 8: checks[0] "Top" field params.k: top_k_diff: param "k" must be an integer`}},
		{"missing name and unknown field, several entries reported", `
checks:
  - type: schema_diff
    parms: {select: x}
  - name: Q
    type: query_diff
`, []string{
			`line 4: checks[0] field parms: unknown field "parms"`,
			`line 3: checks[0] field name: name is required`,
			`line 5: checks[1] "Q" field params: query_diff: param "sql_template" is required`,
		}},
		{"duplicate", `
checks:
  - {name: a, type: schema_diff}
  - {name: b, type: schema_diff, params: {}}
`, []string{`checks[1] "b": same type and params as checks[0]`}},
		{"checks not a list", `checks: {name: a}`, []string{`line 1: checks must be a list`}},
		{"entry not a mapping", "checks:\n  - just a string\n", []string{`line 2: checks[0]: each check must be a mapping`}},
		{"invalid yaml", "checks:\n  - name: a\n   b: : :\n", []string{"invalid YAML", "[3:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePresets([]byte(c.yml), testValidator)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant containing:\n%s", err, w)
				}
			}
			var pe *PresetError
			if !errors.As(err, &pe) {
				t.Errorf("error is not a *PresetError: %T", err)
			}
		})
	}
}

func TestParsePresetsAcceptsValidConfig(t *testing.T) {
	presets, err := ParsePresets([]byte(`
summary: {node_shapes: {model: rectangle}}
checks:
  - name: Orders values
    description: Payments must not change
    type: value_diff
    params:
      model: orders
      primary_key: [order_id, line]
      columns: [amount]
  - name: Status
    type: histogram_diff
    params: {model: orders, column_name: amount, num_bins: 20}
  - name: Lineage
    type: lineage_diff
`), testValidator)
	if err != nil {
		t.Fatal(err)
	}
	if len(presets) != 3 || string(presets[0].Params) != `{"columns":["amount"],"model":"orders","primary_key":["order_id","line"]}` ||
		string(presets[1].Params) != `{"column_name":"amount","model":"orders","num_bins":20}` || string(presets[2].Params) != `{}` {
		t.Fatalf("presets = %+v", presets)
	}
	if presets, err := ParsePresets([]byte("other: 1\n"), nil); err != nil || len(presets) != 0 {
		t.Fatalf("no checks key = %v, %v", presets, err)
	}
}

func TestLoadPresetsErrorNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ripple.yml")
	if err := os.WriteFile(path, []byte("checks:\n  - name: x\n    type: nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := LoadPresets(context.Background(), path, testValidator)
	if err == nil || !strings.HasPrefix(err.Error(), path+":3: checks[0] \"x\" field type") {
		t.Fatalf("error = %v", err)
	}
}

func FuzzParsePresets(f *testing.F) {
	f.Add([]byte(DefaultConfig))
	f.Add([]byte("checks:\n  - {name: a, type: value_diff, params: {model: m, primary_key: [a]}}\n"))
	f.Add([]byte("checks: [1, {type: 2}, {name: [x]}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		presets, err := ParsePresets(data, testValidator)
		if err != nil {
			return
		}
		for _, p := range presets {
			if _, verr := testValidator(p.Type, p.Params); verr != nil || p.Name == "" {
				t.Fatalf("accepted invalid preset %+v: %v", p, verr)
			}
		}
	})
}
