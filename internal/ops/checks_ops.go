package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"time"

	"github.com/ripple-data/ripple/internal/checks"
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
		Runner: checks.RunnerFunc(s.runForCheck),
		Runs:   s.cfg.Runs,
	})
	if err != nil {
		return nil, fmt.Errorf("opening the checks state %s: %w", path, err)
	}
	s.store = st
	return st, nil
}

// runForCheck executes an operation by type name for the checks store.
func (s *Session) runForCheck(ctx context.Context, typ string, params json.RawMessage) (json.RawMessage, error) {
	op, ok := s.registry().Get(typ)
	if !ok {
		return nil, fmt.Errorf("unknown check type %q", typ)
	}
	h, _ := ctx.Value(resultKey{}).(*resultHolder)
	if h == nil {
		h = &resultHolder{}
	}
	in, err := op.Decode(params)
	if err != nil {
		h.err = err
		return nil, err
	}
	out, err := op.run(ctx, s, in)
	if err != nil {
		h.err = err
		return nil, err
	}
	h.out = out
	return json.Marshal(out)
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
		return o.run(ctx, s, in)
	}
	params, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	h := &resultHolder{}
	run, err := store.Execute(context.WithValue(ctx, resultKey{}, h), o.Name, params, triggerOf(ctx))
	if err != nil {
		if errors.Is(err, checks.ErrNoRunner) {
			return o.run(ctx, s, in)
		}
		var pe *checks.ParamError
		if errors.As(err, &pe) {
			// The checks store does not know this operation's params:
			// run it unrecorded rather than refuse it.
			return o.run(ctx, s, in)
		}
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

// CheckIDInput names a check.
type CheckIDInput struct {
	CheckID string `json:"check_id" jsonschema:"check id from list_checks or create_check"`
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
	Check checks.Check `json:"check"`
}

// DeleteResult confirms a deletion.
type DeleteResult struct {
	CheckID string `json:"check_id"`
	Deleted bool   `json:"deleted"`
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
		Description: "The saved checks of this review with their approval (is_checked), last run status, whether they are outdated (artifacts newer than the last run) " +
			"and the CI verdict of the last run (mismatched); totals of checks, approved and outdated."},
		withStore(func(ctx context.Context, s *Session, st *checks.Store, _ *ListChecksInput) (*checks.ListResult, error) {
			// Without loadable artifacts nothing can be called outdated.
			var modTime time.Time
			if p, err := s.Project(ctx); err == nil {
				modTime = ArtifactsModTime(p)
			}
			res := st.List(modTime)
			return &res, nil
		}, false), renderChecks)
	Add(r, Spec{Name: "create_check", Title: "Create check", WritesState: true,
		Description: "Save a diff as a check (types: row_count_diff, schema_diff, lineage_diff, query, query_diff, profile_diff, value_diff, value_diff_detail, " +
			"top_k_diff, histogram_diff) with its params, e.g. the suggested_checks of impact_analysis. Idempotent on type+params: a second create updates " +
			"name/description and returns the same check_id (created=false). With run=true it runs at once; a check an agent creates is approved only when its run succeeds."},
		withStore(func(ctx context.Context, s *Session, st *checks.Store, in *checks.CreateInput) (*checks.CreateResult, error) {
			in.TriggeredBy = triggerOf(ctx)
			res, err := st.Create(ctx, *in)
			return &res, err
		}, true), nil)
	Add(r, Spec{Name: "run_check", Title: "Run check", WritesState: true, Warehouse: true,
		Description: "Re-run a saved check and store the run (run_id, status finished/failed, result or error). An agent's successful run approves the check."},
		withStore(func(ctx context.Context, s *Session, st *checks.Store, in *CheckIDInput) (*checks.Run, error) {
			run, err := st.RunCheck(ctx, in.CheckID, triggerOf(ctx))
			return &run, err
		}, true), nil)
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
		}, true), nil)
	Add(r, Spec{Name: "delete_check", Title: "Delete check", WritesState: true,
		Description: "Delete a saved check (its runs stay in the state file)."},
		withStore(func(ctx context.Context, s *Session, st *checks.Store, in *CheckIDInput) (*DeleteResult, error) {
			if err := st.Delete(ctx, in.CheckID); err != nil {
				return nil, err
			}
			return &DeleteResult{CheckID: in.CheckID, Deleted: true}, nil
		}, true), nil)
	Add(r, Spec{Name: "reorder_check", Title: "Reorder check", WritesState: true,
		Description: "Move a check to a new 0-based position in the list shown to reviewers."},
		withStore(func(ctx context.Context, s *Session, st *checks.Store, in *ReorderInput) (*CheckResult, error) {
			if err := st.Reorder(ctx, in.CheckID, in.Index); err != nil {
				return nil, err
			}
			c, err := st.Get(in.CheckID)
			return &CheckResult{Check: c}, err
		}, true), nil)
}

func renderChecks(w io.Writer, out *checks.ListResult) error {
	fmt.Fprintf(w, "%d checks, %d approved, %d outdated\n", out.Total, out.Approved, out.Outdated)
	for _, c := range out.Checks {
		mark := " "
		if c.IsChecked {
			mark = "✓"
		}
		status := string(c.LastRunStatus)
		if status == "" {
			status = "never run"
		}
		if c.IsOutdated {
			status += ", outdated"
		}
		fmt.Fprintf(w, "%s %s  %-16s %s (%s)\n", mark, c.ID, c.Type, c.Name, status)
	}
	return nil
}
