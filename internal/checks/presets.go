package checks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// DefaultConfigFile is the project configuration holding preset checks.
const DefaultConfigFile = "ripple.yml"

// DefaultConfig is written by LoadPresets when the configuration file does not exist.
const DefaultConfig = `# Ripple preset checks: created (and run by ` + "`ripple run`" + `) for every review.
# Each check: name, description, type (a diff such as row_count_diff, schema_diff, value_diff,
# profile_diff, query_diff, top_k_diff, histogram_diff, lineage_diff) and params (an object;
# the same parameters as the operation of that name).
checks:
  - name: Row count diff
    description: Check the row count diff for all modified table models.
    type: row_count_diff
    params:
      select: state:modified,config.materialized:table
  - name: Schema diff
    description: Check the schema diff for all modified nodes.
    type: schema_diff
    params:
      select: state:modified
`

// Preset is one preset check from ripple.yml.
type Preset struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Type        string          `json:"type"`
	Params      json.RawMessage `json:"params"`
}

// PresetError points at one invalid entry of the checks list.
type PresetError struct {
	File  string // may be empty
	Index int    // position in the checks list (0-based); -1 for file-level errors
	Name  string // the entry's name, if it has one
	Field string // offending field ("" for the whole entry)
	Line  int    // 1-based line in the file, 0 when unknown
	Err   error
}

func (e *PresetError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Index >= 0 {
		fmt.Fprintf(&b, "checks[%d]", e.Index)
		if e.Name != "" {
			fmt.Fprintf(&b, " %q", e.Name)
		}
		if e.Field != "" {
			b.WriteString(" field " + e.Field)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *PresetError) Unwrap() error { return e.Err }

// ParamsValidator validates a check's params for its type and returns them canonical;
// Store.ValidateParams is one (it asks the operation registry).
type ParamsValidator func(typ string, params json.RawMessage) (json.RawMessage, error)

// LoadPresets reads the preset checks of a ripple.yml ("" means DefaultConfigFile). When the file
// does not exist it is created with DefaultConfig and created is true. Each check's type and
// params are checked with validate (nil: only their shape). Validation errors are *PresetError
// values (joined when several entries are bad).
func LoadPresets(ctx context.Context, path string, validate ParamsValidator) (presets []Preset, created bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	if path == "" {
		path = DefaultConfigFile
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		f, cerr := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		switch {
		case cerr == nil:
			_, werr := f.WriteString(DefaultConfig)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				return nil, false, fmt.Errorf("writing default %s: %w", path, werr)
			}
			created = true
			data = []byte(DefaultConfig)
		case errors.Is(cerr, fs.ErrExist): // created concurrently; read it
			if data, err = os.ReadFile(path); err != nil {
				return nil, false, fmt.Errorf("reading %s: %w", path, err)
			}
		default:
			return nil, false, fmt.Errorf("creating default %s (is the directory writable?): %w", path, cerr)
		}
	} else if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	presets, err = parsePresets(path, data, validate)
	return presets, created, err
}

// ParsePresets parses and validates the checks list of a ripple.yml document (see LoadPresets).
// Other top-level keys are ignored (they belong to other features).
func ParsePresets(data []byte, validate ParamsValidator) ([]Preset, error) {
	return parsePresets("", data, validate)
}

var presetFields = map[string]bool{"name": true, "description": true, "type": true, "params": true, "view_options": true}

func parsePresets(file string, data []byte, validate ParamsValidator) ([]Preset, error) {
	fileErr := func(err error) error { return &PresetError{File: file, Index: -1, Err: err} }
	astFile, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, fileErr(fmt.Errorf("invalid YAML: %w", err))
	}
	var top map[string]any
	if err := yaml.Unmarshal(data, &top); err != nil {
		return nil, fileErr(fmt.Errorf("invalid YAML: %w", err))
	}
	raw, ok := top["checks"]
	if !ok || raw == nil {
		return []Preset{}, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, &PresetError{File: file, Index: -1, Line: lineOf(astFile, "$.checks"), Err: errors.New("checks must be a list of {name, description, type, params}")}
	}
	var errs []error
	out := make([]Preset, 0, len(list))
	seen := map[string]int{}
	for i, e := range list {
		perr := func(field string, err error) {
			path := fmt.Sprintf("$.checks[%d]", i)
			line := 0
			if top, _, nested := strings.Cut(field, "."); nested {
				line = lineOf(astFile, path+"."+field)
			} else if top != "" {
				line = keyLine(astFile, path, top)
			}
			if line == 0 {
				line = lineOf(astFile, path)
			}
			name := ""
			if m, ok := e.(map[string]any); ok {
				name, _ = m["name"].(string)
			}
			errs = append(errs, &PresetError{File: file, Index: i, Name: name, Field: field, Line: line, Err: err})
		}
		m, ok := e.(map[string]any)
		if !ok {
			perr("", errors.New("each check must be a mapping with name, type and params"))
			continue
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		bad := false
		for _, k := range keys {
			if !presetFields[k] {
				perr(k, fmt.Errorf("unknown field %q: use name, description, type, params", k))
				bad = true
			}
		}
		name, ok := m["name"].(string)
		if !ok || strings.TrimSpace(name) == "" {
			perr("name", errors.New("name is required (a non-empty string)"))
			bad = true
		}
		desc, ok := m["description"].(string)
		if !ok && m["description"] != nil {
			perr("description", errors.New("description must be a string"))
			bad = true
		}
		typ, ok := m["type"].(string)
		if !ok || typ == "" {
			perr("type", errors.New("type is required: the operation to run, e.g. row_count_diff"))
			continue
		}
		params := json.RawMessage("{}")
		if p, present := m["params"]; present && p != nil {
			if _, isObj := p.(map[string]any); !isObj {
				perr("params", errors.New("params must be a mapping of parameter names to values"))
				continue
			}
			b, err := json.Marshal(p)
			if err != nil {
				perr("params", fmt.Errorf("params cannot be represented as JSON: %w", err))
				continue
			}
			params = b
		}
		if validate != nil {
			p, err := validate(typ, params)
			if err != nil {
				field := "params"
				var pe *ParamError
				switch {
				case errors.Is(err, ErrUnknownType):
					field = "type"
				case errors.As(err, &pe) && pe.Param != "" && lineOf(astFile, fmt.Sprintf("$.checks[%d].params.%s", i, pe.Param)) > 0:
					field = "params." + pe.Param
				}
				perr(field, err)
				continue
			}
			params = p
		}
		canon, err := CanonicalParams(params)
		if err != nil {
			perr("params", err)
			continue
		}
		if bad {
			continue
		}
		key := checkKey(typ, canon)
		if j, dup := seen[key]; dup {
			perr("", fmt.Errorf("same type and params as checks[%d]; remove one of them", j))
			continue
		}
		seen[key] = i
		out = append(out, Preset{Name: name, Description: desc, Type: typ, Params: canon})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// keyLine is the line of the key field in the mapping at path (0 when absent).
func keyLine(f *ast.File, path, field string) int {
	p, err := yaml.PathString(path)
	if err != nil {
		return 0
	}
	n, err := p.FilterFile(f)
	if err != nil {
		return 0
	}
	m, ok := n.(*ast.MappingNode)
	if !ok {
		return 0
	}
	for _, kv := range m.Values {
		if kv.Key != nil && kv.Key.GetToken() != nil && kv.Key.GetToken().Value == field {
			return kv.Key.GetToken().Position.Line
		}
	}
	return 0
}

func lineOf(f *ast.File, path string) int {
	p, err := yaml.PathString(path)
	if err != nil {
		return 0
	}
	n, err := p.FilterFile(f)
	if err != nil || n == nil || n.GetToken() == nil {
		return 0
	}
	return n.GetToken().Position.Line
}

// ApplyPresets creates (or, idempotently, updates the name/description of) one preset check per
// entry, without running them. It returns the checks in preset order.
func (s *Store) ApplyPresets(ctx context.Context, presets []Preset) ([]Check, error) {
	out := make([]Check, 0, len(presets))
	for _, p := range presets {
		res, err := s.Create(ctx, CreateInput{Type: p.Type, Params: p.Params, Name: p.Name, Description: p.Description, IsPreset: true})
		if err != nil {
			return out, fmt.Errorf("preset %q: %w", p.Name, err)
		}
		out = append(out, res.Check)
	}
	return out, nil
}
