package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/dbt"
)

// Checks returns the session's checks store, opening the state file on
// first use. Runs go through the registry, so a check re-runs exactly the
// operation an agent or a user called.
func (s *Session) Checks(ctx context.Context) (*checks.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store != nil {
		return s.store, nil
	}
	path := s.cfg.StatePath
	st, err := checks.OpenStore(ctx, checks.Config{
		File:   checks.NewStateFile(path),
		Runner: runner{s},
		Runs:   s.cfg.Runs,
	})
	if err != nil {
		return nil, fmt.Errorf("opening the checks state %s: %w", path, err)
	}
	s.store = st
	return st, nil
}

// runner is the checks store's Runner and Catalog: a run type is an
// operation name, its params are validated by the operation's own input
// schema and its result is judged by the result's Verdict.
type runner struct{ s *Session }

// Run executes an operation by type name for the checks store.
func (r runner) Run(ctx context.Context, typ string, params json.RawMessage) (json.RawMessage, error) {
	h, _ := ctx.Value(resultKey{}).(*resultHolder)
	if h == nil {
		h = &resultHolder{}
	}
	op, err := r.s.registry().checkOp(typ)
	if err != nil {
		h.err = err
		return nil, err
	}
	in, err := op.Decode(params)
	if err != nil {
		h.err = err
		return nil, err
	}
	out, err := op.run(ctx, r.s, in)
	if err != nil {
		h.err = err
		return nil, err
	}
	h.out = out
	return json.Marshal(out)
}

func (r runner) CheckParams(typ string, params json.RawMessage) (json.RawMessage, error) {
	return r.s.registry().CheckParams(typ, params)
}

func (r runner) Mismatch(typ string, result json.RawMessage) (bool, error) {
	return r.s.registry().Mismatch(typ, result)
}

// checkOp is the operation backing check type typ.
func (r *Registry) checkOp(typ string) (*Op, error) {
	if op, ok := r.byName[typ]; ok && op.Checkable() {
		return op, nil
	}
	types := r.CheckTypes()
	return nil, fmt.Errorf("%w %q: use one of %s%s", checks.ErrUnknownType, typ, strings.Join(types, ", "), dbt.SuggestSuffix(typ, types))
}

// CheckTypes lists the operations that can back a check, sorted.
func (r *Registry) CheckTypes() []string {
	var out []string
	for _, op := range r.Ops() {
		if op.Checkable() {
			out = append(out, op.Name)
		}
	}
	return out
}

// CheckParams validates the params of a check of type typ with that
// operation's input schema and returns them as given, with deprecated
// names renamed to the canonical ones (values keep their form: a primary
// key given as a string stays a string, as the peer stores it).
func (r *Registry) CheckParams(typ string, params json.RawMessage) (json.RawMessage, error) {
	op, err := r.checkOp(typ)
	if err != nil {
		return nil, err
	}
	if _, err := op.Decode(params); err != nil {
		pe := &checks.ParamError{Type: typ, Msg: strings.TrimPrefix(err.Error(), "Input validation error: ")}
		var at *paramError
		if errors.As(err, &at) {
			pe.Param, pe.Msg = at.param, at.msg
		}
		return nil, pe
	}
	var obj map[string]json.RawMessage
	if len(bytes.TrimSpace(params)) > 0 && string(bytes.TrimSpace(params)) != "null" {
		if err := json.Unmarshal(params, &obj); err != nil {
			return nil, &checks.ParamError{Type: typ, Msg: err.Error()}
		}
	}
	for old, p := range op.InputSchema().Properties {
		canonical := aliasTarget(p)
		if v, ok := obj[old]; ok && canonical != "" {
			// Decode refused a conflicting pair, so the canonical value, if
			// any, is the same.
			if _, both := obj[canonical]; !both {
				obj[canonical] = v
			}
			delete(obj, old)
		}
	}
	if obj == nil {
		return json.RawMessage("{}"), nil
	}
	return json.Marshal(obj)
}

// Mismatch judges a stored result of check type typ: it must match the
// operation's output schema (a result of an older shape is an error, never
// a pass), then its Verdict decides.
func (r *Registry) Mismatch(typ string, result json.RawMessage) (bool, error) {
	op, err := r.checkOp(typ)
	if err != nil {
		return false, err
	}
	if err := op.ValidateOutput(result); err != nil {
		return false, fmt.Errorf("%w; run the check again", err)
	}
	v := reflect.New(op.outputType.Elem()).Interface()
	if err := json.Unmarshal(result, v); err != nil {
		return false, fmt.Errorf("reading the %s result: %w", typ, err)
	}
	return v.(Verdict).Mismatch()
}

// Verdict is the CI verdict of a run of typ (see Registry.Mismatch).
func (s *Session) Verdict(typ string, result json.RawMessage) (bool, error) {
	return s.registry().Mismatch(typ, result)
}

type resultKey struct{}

// resultHolder hands the typed result of a recorded run back to the caller
// without a JSON round trip.
type resultHolder struct {
	out any
	err error
}

// callRecorded runs a run-backed operation through the checks store so the
// run is recorded, and stamps its run_id on the result. The state file is
// written only when it already exists: a one-off CLI diff must not leave
// files behind, while a review in progress keeps its evidence.
func (o *Op) callRecorded(ctx context.Context, s *Session, in any) (any, error) {
	store, err := s.Checks(ctx)
	if err != nil {
		s.Logger().Warn("running unrecorded: the checks state cannot be opened", "op", o.Name, "error", err)
		return o.run(ctx, s, in)
	}
	params, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	h := &resultHolder{}
	run, err := store.Execute(context.WithValue(ctx, resultKey{}, h), o.Name, params, triggerOf(ctx))
	if err != nil {
		return nil, err
	}
	if run.Status != checks.StatusFinished {
		s.saveIfExists(ctx, store)
		if h.err != nil {
			// Keep the typed error (warehouse class, ErrNoWarehouse) for callers.
			return nil, h.err
		}
		return nil, errors.New(run.Error)
	}
	setRunID(h.out, run.ID)
	s.saveIfExists(ctx, store)
	return h.out, nil
}

func setRunID(out any, id string) {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	if f := v.Elem().FieldByName("RunID"); f.IsValid() && f.Kind() == reflect.String && f.CanSet() {
		f.SetString(id)
	}
}

func (s *Session) saveIfExists(ctx context.Context, store *checks.Store) {
	path := s.Config().StatePath
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err := store.Save(ctx); err != nil {
		s.Logger().Warn("could not save the checks state", "path", path, "error", err)
	}
}

// runAndApprove runs a check and, when the run succeeds, approves it: the
// peer's rule for create_check and run_check, whoever triggers them.
func runAndApprove(ctx context.Context, st *checks.Store, id string, by checks.Trigger) (checks.Run, error) {
	run, err := st.RunCheck(ctx, id, by)
	if err != nil {
		return run, err
	}
	if run.Succeeded() {
		if _, err := st.Approve(ctx, id); err != nil {
			return run, err
		}
	}
	return run, nil
}

// trigger is who a call says triggered it, else who the surface says
// (recce_ai over MCP, user on the CLI).
func trigger(ctx context.Context, given string) (checks.Trigger, error) {
	if given == "" {
		return triggerOf(ctx), nil
	}
	return checks.ParseTrigger(given)
}

// CreateCheckInput saves (and by default runs) a check.
type CreateCheckInput struct {
	Type        string          `json:"type" jsonschema:"the operation to run"`
	Params      json.RawMessage `json:"params" type:"object" jsonschema:"its parameters"`
	Name        string          `json:"name" jsonschema:"display name"`
	Description string          `json:"description,omitempty" jsonschema:"what was found and why it matters"`
	TriggeredBy string          `json:"triggered_by,omitempty" enum:"user,recce_ai,agent" jsonschema:"user or recce_ai (MCP default)"`
	Run         *bool           `json:"run,omitempty" jsonschema:"run now, approve on success (default true)"`
}

// CreateCheckResult is the peer's create_check answer plus the run's id
// (list_checks shows the check).
type CreateCheckResult struct {
	CheckID     string `json:"check_id" jsonschema:"check id"`
	Created     bool   `json:"created" jsonschema:"false: same type+params existed, renamed"`
	RunExecuted bool   `json:"run_executed" jsonschema:"the run finished"`
	RunError    string `json:"run_error,omitempty" jsonschema:"why the run failed"`
	RunID       string `json:"run_id,omitempty" jsonschema:"the run, to cite"`
}

// RunCheckInput re-runs a check.
type RunCheckInput struct {
	CheckID     string `json:"check_id" jsonschema:"check id"`
	TriggeredBy string `json:"triggered_by,omitempty" enum:"user,recce_ai,agent" jsonschema:"user or recce_ai (MCP default)"`
}

// CheckIDInput names a check.
type CheckIDInput struct {
	CheckID string `json:"check_id" jsonschema:"check id"`
}

// ApproveInput approves or unapproves a check.
type ApproveInput struct {
	CheckID  string `json:"check_id" jsonschema:"check id"`
	Approved *bool  `json:"approved,omitempty" jsonschema:"true to approve (default), false to withdraw approval"`
}

// ReorderInput moves a check.
type ReorderInput struct {
	CheckID string `json:"check_id" jsonschema:"check id"`
	Index   int    `json:"index" jsonschema:"new 0-based position"`
}

// CheckResult wraps one check.
type CheckResult struct {
	Check checks.Check `json:"check" jsonschema:"the check"`
}

// DeleteResult confirms a deletion.
type DeleteResult struct {
	CheckID string `json:"check_id" jsonschema:"the deleted check's id"`
	Deleted bool   `json:"deleted" jsonschema:"always true (a missing id is an error)"`
}

// ListChecksInput has no parameters.
type ListChecksInput struct{}

func withStore[In, Out any](f func(ctx context.Context, s *Session, st *checks.Store, in *In) (*Out, error), save bool) func(context.Context, *Session, *In) (*Out, error) {
	return func(ctx context.Context, s *Session, in *In) (*Out, error) {
		st, err := s.Checks(ctx)
		if err != nil {
			return nil, err
		}
		out, err := f(ctx, s, st, in)
		if err != nil {
			return nil, err
		}
		if save {
			if err := st.Save(ctx); err != nil {
				return nil, fmt.Errorf("saving the checks state %s: %w", s.Config().StatePath, err)
			}
		}
		return out, nil
	}
}

func addCheckOps(r *Registry) {
	Add(r, Spec{Name: "list_checks", Title: "List checks",
		Description: "The saved checks with approval (is_checked), last run status, outdated flag and CI verdict (mismatched)."},
		withStore(func(ctx context.Context, s *Session, st *checks.Store, _ *ListChecksInput) (*checks.ListResult, error) {
			// Without loadable artifacts nothing can be called outdated.
			var modTime time.Time
			if p, err := s.Project(ctx); err == nil {
				modTime = ArtifactsModTime(p)
			}
			res := st.List(modTime)
			return &res, nil
		}, false))
	Add(r, Spec{Name: "create_check", Title: "Create check", WritesState: true, Warehouse: true,
		Description: "Save a check (type: an operation; params: its arguments) and run it; success approves it (run=false: only save). " +
			"Idempotent on type+params (created=false, renamed)."},
		withStore(func(ctx context.Context, s *Session, st *checks.Store, in *CreateCheckInput) (*CreateCheckResult, error) {
			by, err := trigger(ctx, in.TriggeredBy)
			if err != nil {
				return nil, err
			}
			created, err := st.Create(ctx, checks.CreateInput{Type: in.Type, Params: in.Params, Name: in.Name, Description: in.Description, TriggeredBy: by})
			if err != nil {
				return nil, err
			}
			res := &CreateCheckResult{CheckID: created.CheckID, Created: created.Created}
			if in.Run == nil || *in.Run {
				run, err := runAndApprove(ctx, st, created.CheckID, by)
				if err != nil {
					return nil, err
				}
				res.RunID, res.RunExecuted, res.RunError = run.ID, run.Status == checks.StatusFinished, run.Error
			}
			return res, nil
		}, true))
	Add(r, Spec{Name: "run_check", Title: "Run check", WritesState: true, Warehouse: true,
		Description: "Re-run a saved check; returns the run (status Finished, Failed or Cancelled). Finished approves the check."},
		withStore(func(ctx context.Context, s *Session, st *checks.Store, in *RunCheckInput) (*checks.Run, error) {
			by, err := trigger(ctx, in.TriggeredBy)
			if err != nil {
				return nil, err
			}
			run, err := runAndApprove(ctx, st, in.CheckID, by)
			return &run, err
		}, true))
	Add(r, Spec{Name: "approve_check", Title: "Approve check", WritesState: true,
		Description: "Approve (or, with approved=false, unapprove) a check after reviewing its result."},
		withStore(func(ctx context.Context, s *Session, st *checks.Store, in *ApproveInput) (*CheckResult, error) {
			var c checks.Check
			var err error
			if in.Approved != nil && !*in.Approved {
				c, err = st.Unapprove(ctx, in.CheckID)
			} else {
				c, err = st.Approve(ctx, in.CheckID)
			}
			return &CheckResult{Check: c}, err
		}, true))
	Add(r, Spec{Name: "delete_check", Title: "Delete check", WritesState: true,
		Description: "Delete a saved check (its runs stay in the state file)."},
		withStore(func(ctx context.Context, s *Session, st *checks.Store, in *CheckIDInput) (*DeleteResult, error) {
			if err := st.Delete(ctx, in.CheckID); err != nil {
				return nil, err
			}
			return &DeleteResult{CheckID: in.CheckID, Deleted: true}, nil
		}, true))
	Add(r, Spec{Name: "reorder_check", Title: "Reorder check", WritesState: true,
		Description: "Move a check to a new 0-based position in the list shown to reviewers."},
		withStore(func(ctx context.Context, s *Session, st *checks.Store, in *ReorderInput) (*CheckResult, error) {
			if err := st.Reorder(ctx, in.CheckID, in.Index); err != nil {
				return nil, err
			}
			c, err := st.Get(in.CheckID)
			return &CheckResult{Check: c}, err
		}, true))
}
