// Package ops is the single catalogue of Ripple's operations. Each operation
// is one typed Go function; the CLI (`ripple <op-name>`) and the MCP server
// (tool `<op_name>`) are generated from this catalogue, so both surfaces call
// the same code and return the same JSON.
package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

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
	InputSchema  *jsonschema.Schema
	OutputSchema *jsonschema.Schema
	inputType    reflect.Type
	resolved     *jsonschema.Resolved
	run          func(ctx context.Context, s *Session, in any) (any, error)
	text         func(w io.Writer, out any) error
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
			reflect.TypeFor[diff.Keys](): {AnyOf: []*jsonschema.Schema{
				{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
			}},
		},
	}
}

// Add registers an operation. run receives a validated, decoded input.
// text renders the result for humans; nil falls back to indented JSON.
func Add[In, Out any](r *Registry, spec Spec, run func(ctx context.Context, s *Session, in *In) (*Out, error), text func(w io.Writer, out *Out) error) {
	if _, dup := r.byName[spec.Name]; dup {
		panic("ops: duplicate operation " + spec.Name) // programming error at start-up
	}
	opts := schemaOptions()
	in, err := jsonschema.For[In](opts)
	if err != nil {
		panic(fmt.Sprintf("ops: input schema of %s: %v", spec.Name, err))
	}
	// Unknown arguments are rejected: a misspelt parameter must not be
	// silently ignored by an agent.
	in.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	out, err := jsonschema.For[Out](opts)
	if err != nil {
		panic(fmt.Sprintf("ops: output schema of %s: %v", spec.Name, err))
	}
	resolved, err := in.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("ops: resolving input schema of %s: %v", spec.Name, err))
	}
	op := &Op{
		Spec: spec, InputSchema: in, OutputSchema: out, resolved: resolved,
		inputType: reflect.TypeFor[In](),
		run: func(ctx context.Context, s *Session, v any) (any, error) {
			return run(ctx, s, v.(*In))
		},
	}
	if text != nil {
		op.text = func(w io.Writer, v any) error { return text(w, v.(*Out)) }
	}
	r.ops = append(r.ops, op)
	r.byName[spec.Name] = op
}

// InputError is an argument that does not match the operation's input schema.
type InputError struct{ Err error }

func (e *InputError) Error() string { return "Input validation error: " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Decode validates raw JSON arguments against the input schema and decodes
// them. Validation is strict: a string "false" for a boolean is rejected.
func (o *Op) Decode(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, &InputError{fmt.Errorf("arguments are not valid JSON: %w", err)}
	}
	if _, ok := generic.(map[string]any); !ok {
		return nil, &InputError{fmt.Errorf("arguments must be a JSON object")}
	}
	if err := o.resolved.Validate(generic); err != nil {
		return nil, &InputError{err}
	}
	v := reflect.New(o.inputType).Interface()
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, &InputError{err}
	}
	return v, nil
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

// RenderText writes the human form of a result.
func (o *Op) RenderText(w io.Writer, out any) error {
	if o.text != nil {
		return o.text(w, out)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
