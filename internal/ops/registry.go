// Package ops is the single catalogue of Ripple's operations. Each operation
// is one typed Go function; the CLI (`ripple <op-name>`) and the MCP server
// (tool `<op_name>`) are generated from this catalogue, so both surfaces call
// the same code and return the same JSON.
package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ripple-data/ripple/internal/sqldiff"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/diff"
)

// Spec describes an operation independently of its types.
type Spec struct {
	// Name is the snake_case tool name; the CLI command is its kebab-case.
	Name string
	// Title is a short human title.
	Title string
	// Description is the contract shown to agents: what it does, what the
	// result fields mean and when to use it.
	Description string
	// Warehouse is true when the operation queries the warehouse.
	Warehouse bool
	// WritesState is true when it changes the checks state file.
	WritesState bool
	// DiffTool is true for operations comparing data across environments;
	// in single-environment mode their descriptions say base equals current.
	DiffTool bool
	// RunBacked operations are recorded as runs in the checks state and
	// their result carries the run_id.
	RunBacked bool
	// Memoize marks artifact-only operations whose result depends only on
	// the loaded artifacts and the input: the session keeps the result until
	// the artifacts change, so repeated agent calls are answered at once.
	Memoize bool
	// CustomCLI operations have a hand-written CLI command (e.g. one that
	// reads its inputs from files); the generated one is skipped.
	CustomCLI bool
	// Positional names the input field that CLI positional arguments fill
	// (a string or []string field), if any.
	Positional string
}

// Op is a registered operation with its type information erased, so that
// surfaces can iterate over all of them.
type Op struct {
	Spec
	inputType  reflect.Type
	outputType reflect.Type
	run        func(ctx context.Context, s *Session, in any) (any, error)
	// The schemas are built on first use, not at registration: reflecting
	// and resolving ~60 pairs of schemas costs more than a whole
	// `ripple --version`, and a CLI command needs only its own.
	schemaOnce sync.Once
	build      func() schemas
	schemas    schemas
}

// schemas are an operation's JSON Schemas, derived from its Go types.
type schemas struct {
	in, out     *jsonschema.Schema
	resolved    *jsonschema.Resolved // the schema Decode validates against
	resolvedOut *jsonschema.Resolved
	// requiredAliases maps a required parameter to its deprecated aliases.
	requiredAliases map[string][]string
}

// sch builds the schemas once.
func (o *Op) sch() *schemas {
	o.schemaOnce.Do(func() { o.schemas = o.build() })
	return &o.schemas
}

// InputSchema is the JSON Schema of the operation's input, as published.
func (o *Op) InputSchema() *jsonschema.Schema { return o.sch().in }

// OutputSchema is the JSON Schema of the operation's result.
func (o *Op) OutputSchema() *jsonschema.Schema { return o.sch().out }

// RequiredParams lists the input's required parameters (those of
// InputSchema().Required) from the struct tags alone, so that the CLI can
// mark its flags without building every operation's schema: a field is
// required unless its json tag says omitempty or omitzero, as jsonschema.For
// decides.
func (o *Op) RequiredParams() []string {
	var req []string
	if o.inputType.Kind() != reflect.Struct {
		return nil
	}
	for _, f := range reflect.VisibleFields(o.inputType) {
		if !f.IsExported() || (f.Anonymous && f.Tag.Get("json") == "" && f.Type.Kind() == reflect.Struct) {
			continue
		}
		tag, ok := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if ok && tag == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		omit := false
		for _, opt := range strings.Split(opts, ",") {
			omit = omit || opt == "omitempty" || opt == "omitzero"
		}
		if !omit && !slices.Contains(req, name) {
			req = append(req, name)
		}
	}
	return req
}

// Normalizer is implemented by inputs that accept deprecated parameter
// names. A deprecated name stays an optional field whose jsonschema
// description starts with "Deprecated: use <new>." (Add marks its schema
// property deprecated); Decode calls Normalize after unmarshalling, which
// folds the alias into the canonical field (see alias.Fold) and fails when
// both are set and differ, so operations only read canonical fields.
type Normalizer interface{ Normalize() error }

// Verdict is implemented by results that can back a saved check: Mismatch
// is the CI verdict, true when base and current differ. A result type that
// cannot say (or a result it cannot judge) returns an error, which CI
// reports as a failure, never as a pass. The check types are exactly the
// operations whose result implements Verdict.
type Verdict interface{ Mismatch() (bool, error) }

// deprecatedPrefix starts the description of a deprecated input field.
const deprecatedPrefix = "Deprecated:"

// OutputType is the Go type of the operation's result struct.
func (o *Op) OutputType() reflect.Type { return o.outputType }

// Checkable reports whether the operation can back a saved check (its
// result implements Verdict).
func (o *Op) Checkable() bool {
	return o.outputType.Implements(reflect.TypeFor[Verdict]())
}

// CLIName is the kebab-case command name.
func (o *Op) CLIName() string { return strings.ReplaceAll(o.Name, "_", "-") }

// InputType is the Go type of the operation's input struct.
func (o *Op) InputType() reflect.Type { return o.inputType }

// Registry holds operations in registration order.
type Registry struct {
	ops    []*Op
	byName map[string]*Op
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byName: map[string]*Op{}} }

// Ops returns the operations sorted by name.
func (r *Registry) Ops() []*Op {
	out := append([]*Op(nil), r.ops...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Get finds an operation by snake or kebab name.
func (r *Registry) Get(name string) (*Op, bool) {
	op, ok := r.byName[strings.ReplaceAll(name, "-", "_")]
	return op, ok
}

// schemaOptions maps the types whose JSON form the reflection cannot see.
func schemaOptions() *jsonschema.ForOptions {
	return &jsonschema.ForOptions{
		IgnoreInvalidTypes: true,
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[json.RawMessage](): {},
			// A key is one column name or a list of them.
			reflect.TypeFor[diff.Keys](): {OneOf: []*jsonschema.Schema{
				{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
			}},
			reflect.TypeFor[checks.Run]():              checks.RunSchema(),
			reflect.TypeFor[diff.RowCountDiffResult](): (*diff.RowCountDiffResult)(nil).JSONSchema(),
			reflect.TypeFor[diff.RowCountResult]():     (*diff.RowCountResult)(nil).JSONSchema(),
			// code_change rides on get_model and impact_analysis, both in
			// the default toolset: its shape is told in the field's
			// description (sql_diff's output schema spells it out), which
			// keeps tools/list within its budget.
			reflect.TypeFor[sqldiff.CodeChange](): {Type: "object"},
		},
	}
}

// Add registers an operation. run receives a validated, decoded input.
// How a result reads for humans is the CLI's business (internal/cli/render).
func Add[In, Out any](r *Registry, spec Spec, run func(ctx context.Context, s *Session, in *In) (*Out, error)) {
	if _, dup := r.byName[spec.Name]; dup {
		panic("ops: duplicate operation " + spec.Name) // programming error at start-up
	}
	op := &Op{
		Spec:      spec,
		inputType: reflect.TypeFor[In](), outputType: reflect.TypeFor[*Out](),
		run: func(ctx context.Context, s *Session, v any) (any, error) {
			res, err := run(ctx, s, v.(*In))
			if err == nil && res != nil {
				fillLists(reflect.ValueOf(res))
			}
			return res, err
		},
		build: func() schemas { return buildSchemas[In, Out](spec.Name) },
	}
	r.ops = append(r.ops, op)
	r.byName[spec.Name] = op
}

// buildSchemas derives an operation's schemas from its input and result
// types. An error is a programming error (a type the reflection cannot
// express), which every operation's schema test catches.
func buildSchemas[In, Out any](name string) schemas {
	opts := schemaOptions()
	in, err := jsonschema.For[In](opts)
	if err != nil {
		panic(fmt.Sprintf("ops: input schema of %s: %v", name, err))
	}
	// Unknown arguments are rejected: a misspelt parameter must not be
	// silently ignored by an agent.
	in.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	annotateInput(in, reflect.TypeFor[In]())
	nonNullLists(in)
	out, err := jsonschema.For[Out](opts)
	if err != nil {
		panic(fmt.Sprintf("ops: output schema of %s: %v", name, err))
	}
	nonNullLists(out)
	sc := schemas{in: in, out: out}
	// A required parameter with a deprecated alias is satisfied by either
	// name: the published schema keeps the canonical name required, the
	// schema Decode validates against does not, and Decode checks that one
	// of the two is present.
	validation := in
	for old, p := range in.Properties {
		canonical := aliasTarget(p)
		if canonical == "" || !slices.Contains(in.Required, canonical) {
			continue
		}
		if validation == in {
			validation = in.CloneSchemas()
		}
		// DeleteFunc works in place: clone, as CloneSchemas shares slices.
		validation.Required = slices.DeleteFunc(slices.Clone(validation.Required), func(n string) bool { return n == canonical })
		if sc.requiredAliases == nil {
			sc.requiredAliases = map[string][]string{}
		}
		sc.requiredAliases[canonical] = append(sc.requiredAliases[canonical], old)
	}
	if sc.resolved, err = validation.Resolve(nil); err != nil {
		panic(fmt.Sprintf("ops: resolving input schema of %s: %v", name, err))
	}
	if sc.resolvedOut, err = out.Resolve(nil); err != nil {
		panic(fmt.Sprintf("ops: resolving output schema of %s: %v", name, err))
	}
	return sc
}

// nonNullLists makes every list of a schema non-nullable: results never
// carry null for a list (fillLists), so agents need not test for it, and a
// list parameter is a list or absent.
func nonNullLists(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" && s.Types[1] == "array" {
		s.Type, s.Types = "array", nil
	}
	for _, p := range s.Properties {
		nonNullLists(p)
	}
	nonNullLists(s.Items)
	nonNullLists(s.AdditionalProperties)
	for _, l := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf} {
		for _, sub := range l {
			nonNullLists(sub)
		}
	}
}

// fillLists replaces, in place, the nil slices of a freshly built result
// with empty ones, so that its JSON has [] where the schema says list.
// Byte slices (json.RawMessage) are left alone.
func fillLists(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			fillLists(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() || f.Kind() == reflect.Pointer || f.Kind() == reflect.Interface {
				if v.Type().Field(i).IsExported() {
					fillLists(f)
				}
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		if v.IsNil() {
			if v.CanSet() {
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			}
			return
		}
		if k := v.Type().Elem().Kind(); k == reflect.Struct || k == reflect.Pointer || k == reflect.Slice || k == reflect.Interface || k == reflect.Map {
			for i := 0; i < v.Len(); i++ {
				fillLists(v.Index(i))
			}
		}
	case reflect.Map:
		if k := v.Type().Elem().Kind(); k == reflect.Pointer || k == reflect.Interface {
			for _, key := range v.MapKeys() {
				fillLists(v.MapIndex(key))
			}
		} else if k == reflect.Slice {
			for _, key := range v.MapKeys() {
				if e := v.MapIndex(key); e.IsNil() && e.Type().Elem().Kind() != reflect.Uint8 {
					v.SetMapIndex(key, reflect.MakeSlice(e.Type(), 0, 0))
				}
			}
		}
	}
}

// aliasTarget is the canonical name a deprecated property points to
// ("Deprecated: use sql_template." → sql_template), or "".
func aliasTarget(p *jsonschema.Schema) string {
	if p == nil || !p.Deprecated {
		return ""
	}
	rest, ok := strings.CutPrefix(p.Description, deprecatedPrefix+" use ")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, ".")
	return strings.TrimSpace(name)
}

// InputError is an argument that does not match the operation's input schema.
type InputError struct{ Err error }

func (e *InputError) Error() string { return "Input validation error: " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Param names the parameter an input error is about and what is wrong with
// it ("is required", "is invalid: ..."), so that a surface can say it in its
// own words (the CLI names the flag); ok is false when the error is not
// about one parameter.
func (e *InputError) Param() (name, problem string, ok bool) {
	var pe *paramError
	if errors.As(e.Err, &pe) {
		return pe.param, pe.msg, true
	}
	return "", "", false
}

// paramError is one parameter at fault, so callers can point at it (the
// line of a ripple.yml preset); msg says what is wrong with it.
type paramError struct {
	param, msg string
	err        error
}

func (e *paramError) Error() string { return e.err.Error() }
func (e *paramError) Unwrap() error { return e.err }

// Decode validates raw JSON arguments against the input schema and decodes
// them. Validation is strict: a string "false" for a boolean is rejected,
// and an unknown parameter is named with the closest known ones.
func (o *Op) Decode(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, &InputError{fmt.Errorf("arguments are not valid JSON: %w", err)}
	}
	obj, ok := generic.(map[string]any)
	if !ok {
		return nil, &InputError{fmt.Errorf("arguments must be a JSON object")}
	}
	if err := o.checkNames(obj); err != nil {
		return nil, &InputError{err}
	}
	if err := o.sch().resolved.Validate(generic); err != nil {
		return nil, &InputError{o.locate(obj, err)}
	}
	v := reflect.New(o.inputType).Interface()
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, &InputError{err}
	}
	if n, ok := v.(Normalizer); ok {
		if err := n.Normalize(); err != nil {
			return nil, &InputError{err}
		}
	}
	return v, nil
}

// checkNames rejects unknown parameters (with the closest known names)
// and a missing required parameter that has a deprecated alias.
func (o *Op) checkNames(obj map[string]any) error {
	sc := o.sch()
	var known []string // suggestions: the current names only
	for n, p := range sc.in.Properties {
		if !p.Deprecated {
			known = append(known, n)
		}
	}
	sort.Strings(known)
	var given []string
	for n := range obj {
		given = append(given, n)
	}
	sort.Strings(given)
	for _, n := range given {
		if _, ok := sc.in.Properties[n]; !ok {
			err := fmt.Errorf("unknown parameter %q of %s%s", n, o.Name, dbt.SuggestSuffix(n, known))
			return &paramError{n, "is not a parameter of " + o.Name + dbt.SuggestSuffix(n, known), err}
		}
	}
	for canonical, olds := range sc.requiredAliases {
		if _, ok := obj[canonical]; ok {
			continue
		}
		if !slices.ContainsFunc(olds, func(old string) bool { _, ok := obj[old]; return ok }) {
			return &paramError{canonical, "is required", fmt.Errorf("missing required parameter %q", canonical)}
		}
	}
	return nil
}

// locate names the parameter a schema violation is about: the first
// given parameter that fails its own schema, or a missing required one.
func (o *Op) locate(obj map[string]any, err error) error {
	sc := o.sch()
	for _, n := range sc.in.Required {
		if _, ok := obj[n]; !ok {
			if _, aliased := sc.requiredAliases[n]; !aliased {
				return &paramError{n, "is required", err}
			}
		}
	}
	names := make([]string, 0, len(obj))
	for n := range obj {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r, rerr := sc.in.Properties[n].Resolve(nil)
		if rerr == nil {
			if verr := r.Validate(obj[n]); verr != nil {
				return &paramError{n, "is invalid: " + strings.TrimPrefix(verr.Error(), "validating root: "), err}
			}
		}
	}
	return err
}

// ValidateOutput checks a result (as JSON) against the operation's output
// schema, e.g. a stored run result before it is judged.
func (o *Op) ValidateOutput(raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("%s result is not valid JSON: %w", o.Name, err)
	}
	if err := o.sch().resolvedOut.Validate(v); err != nil {
		return fmt.Errorf("%s result does not match its schema: %w", o.Name, err)
	}
	return nil
}

// annotateInput adds what struct tags say beyond descriptions: a `type`
// tag sets the JSON type, an `enum` tag ("a,b") lists the allowed values, a description starting with
// "Deprecated:" marks the property deprecated, and every select parameter
// ends with the selector grammar note.
func annotateInput(s *jsonschema.Schema, t reflect.Type) {
	if t.Kind() != reflect.Struct {
		return
	}
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := s.Properties[name]
		if name == "" || name == "-" || p == nil {
			continue
		}
		if t := f.Tag.Get("type"); t != "" {
			p.Type = t // e.g. an object given as raw JSON
		}
		if e := f.Tag.Get("enum"); e != "" {
			for _, v := range strings.Split(e, ",") {
				p.Enum = append(p.Enum, v)
			}
		}
		if strings.HasPrefix(p.Description, deprecatedPrefix) {
			p.Deprecated = true
		}
		if name == "select" && !strings.Contains(p.Description, SelectNote) {
			p.Description = strings.TrimSpace(p.Description + " " + SelectNote)
		}
	}
}

// PanicError is a panic inside an operation, turned into an error so that a
// long-lived server keeps serving.
type PanicError struct {
	Op    string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error in %s: %v (please report it)", e.Op, e.Value)
}

// Call runs the operation on a decoded input (from Decode).
func (o *Op) Call(ctx context.Context, s *Session, in any) (out any, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Op: o.Name, Value: v, Stack: debug.Stack()}
			s.Logger().Error("operation panicked", "op", o.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	if o.RunBacked {
		return o.callRecorded(ctx, s, in)
	}
	if o.Memoize {
		key, err := json.Marshal(in)
		if err == nil {
			return s.Cached(ctx, "op:"+o.Name+":"+string(key), func(*dbt.Project) (any, error) { return o.run(ctx, s, in) })
		}
	}
	return o.run(ctx, s, in)
}

// CallJSON validates, decodes and runs.
func (o *Op) CallJSON(ctx context.Context, s *Session, raw json.RawMessage) (any, error) {
	in, err := o.Decode(raw)
	if err != nil {
		return nil, err
	}
	return o.Call(ctx, s, in)
}
