package diff

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ripple-data/ripple/internal/frame"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// Single-environment run types (the peer's row_count and profile): the
// same measures as row_count_diff and profile_diff, in the current
// environment only, so they need no base build.

// CurrentCount is one model's count in the current environment (the peer's
// curr and curr_meta).
type CurrentCount struct {
	Current     *int64       `json:"curr" jsonschema:"current rows, or null"`
	CurrentMeta RowCountMeta `json:"curr_meta" jsonschema:"status of the current count"`
}

// RowCountResult maps model names to their current counts; its JSON is
// flat, as the peer's: {"<model>": {curr, curr_meta}, ..., "run_id": "..."}.
type RowCountResult struct {
	// RunID identifies the recorded run when the checks state keeps runs.
	RunID  string
	Models map[string]*CurrentCount
}

// Mismatch is the CI verdict of a single-environment count: never a mismatch.
func (*RowCountResult) Mismatch() (bool, error) { return false, nil }

// MarshalJSON writes the flat map.
func (r *RowCountResult) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(r.Models)+1)
	for k, v := range r.Models {
		m[k] = v
	}
	if _, clash := m["run_id"]; !clash && r.RunID != "" {
		m["run_id"] = r.RunID
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the flat map.
func (r *RowCountResult) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*r = RowCountResult{Models: make(map[string]*CurrentCount, len(m))}
	for k, v := range m {
		if k == "run_id" {
			var s string
			if json.Unmarshal(v, &s) == nil {
				r.RunID = s
				continue
			}
		}
		var c CurrentCount
		if err := json.Unmarshal(v, &c); err != nil {
			return fmt.Errorf("row count of %s: %w", k, err)
		}
		r.Models[k] = &c
	}
	return nil
}

// JSONSchema describes the flat map.
func (*RowCountResult) JSONSchema() *jsonschema.Schema {
	c, err := jsonschema.For[CurrentCount](nil)
	if err != nil {
		panic(err) // a static type: cannot fail
	}
	c.Description = "the model's current count"
	return &jsonschema.Schema{
		Type:                 "object",
		Description:          "{<model name>: current count}",
		Properties:           map[string]*jsonschema.Schema{"run_id": {Type: "string", Description: "recorded run, to cite"}},
		PropertyOrder:        []string{"run_id"},
		AdditionalProperties: c,
	}
}

// CurrentRowCount counts the rows of models in the current environment, with the
// statuses of RowCountDiff for what cannot be counted.
func CurrentRowCount(ctx context.Context, env Env, in RowCountDiffInput) (*RowCountResult, error) {
	if _, err := env.needWarehouse(); err != nil {
		return nil, err
	}
	names, err := env.rowCountNames(in)
	if err != nil {
		return nil, err
	}
	res := &RowCountResult{Models: make(map[string]*CurrentCount, len(names))}
	for i, name := range names {
		env.progress("row_count", "counting "+name, float64(i)/float64(len(names)))
		c := &CurrentCount{}
		if c.Current, c.CurrentMeta, err = env.countSide(ctx, name, Current); err != nil {
			return nil, err
		}
		if c.CurrentMeta.Status == StatusNotInManifest {
			if b, _ := findNode(env.manifest(Base), name); b != nil {
				c.CurrentMeta.Message += " (it is in base: the change removes it)"
			} else {
				c.CurrentMeta.Message += env.suggestName(name)
			}
		}
		res.Models[name] = c
	}
	env.progress("row_count", "done", 1)
	return res, nil
}

// ProfileResult is the peer's profile: one frame, the current environment.
type ProfileResult struct {
	// RunID identifies the recorded run when the checks state keeps runs.
	RunID   string       `json:"run_id,omitempty" jsonschema:"recorded run, to cite"`
	Current *frame.Frame `json:"current" jsonschema:"one row per column"`
}

// Mismatch is the CI verdict of a single-environment profile: never a mismatch.
func (*ProfileResult) Mismatch() (bool, error) { return false, nil }

// CurrentProfile profiles a model's columns in the current environment with one
// query (the metrics of ProfileDiff).
func CurrentProfile(ctx context.Context, env Env, in ProfileDiffInput) (*ProfileResult, error) {
	d, err := env.needWarehouse()
	if err != nil {
		return nil, err
	}
	t, err := env.resolveModel(in.Model)
	if err != nil {
		return nil, err
	}
	n := t.node(Current)
	if n == nil {
		return nil, fmt.Errorf("model %s is not in the current build (it was removed); profile it in base with profile_diff, or query it", t.Name)
	}
	if err := env.checkRelation(n, Current); err != nil {
		return nil, err
	}
	cols, err := env.physicalColumns(ctx, n, Current)
	if err != nil {
		return nil, err
	}
	if len(in.Columns) > 0 {
		var keep []warehouse.Column
		for _, name := range in.Columns {
			c, ok := matchColumn(cols, name)
			if !ok {
				return nil, fmt.Errorf("column %q is not in %s%s", name, t.Name, ColumnHint(name, columnNames(cols)))
			}
			keep = append(keep, c)
		}
		cols = keep
	}
	env.progress("profile", "profiling "+t.Name, 0)
	f, err := env.profileSide(ctx, d, relationSQL(d, n), cols, Current)
	if err != nil {
		return nil, err
	}
	env.progress("profile", "done", 1)
	return &ProfileResult{Current: f}, nil
}
