// Package checks is Ripple's storage and lifecycle core for runs (every executed diff), checks
// (saved, approvable diffs), preset checks from ripple.yml and the durable state file.
//
// The CLI and the MCP server drive a Store; the diff operations themselves are injected through
// the Runner interface so this package never touches the warehouse.
package checks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Runner executes one run type. typ is an operation name (e.g. row_count_diff) and params its
// JSON object of parameters. The returned result is stored verbatim on the Run. Runner is
// implemented by the operation registry (internal/ops) and injected into a Store; a Runner that
// also implements Catalog validates check params and judges results, so this package never
// keeps its own list of operations.
type Runner interface {
	Run(ctx context.Context, typ string, params json.RawMessage) (json.RawMessage, error)
}

// Catalog knows the run types. The operation registry implements it next to Runner: the check
// types are the operations whose result has a CI verdict, and their params are validated by
// each operation's own input schema.
type Catalog interface {
	// CheckParams reports whether typ can back a check and params are valid for it. It returns
	// the params with deprecated names folded into canonical ones. Errors wrap ErrUnknownType
	// for unknown types and are *ParamError when one parameter is at fault.
	CheckParams(typ string, params json.RawMessage) (json.RawMessage, error)
	// Mismatch is the CI verdict of a finished run's result: true when base and current differ.
	// A result it cannot judge is an error, never a pass.
	Mismatch(typ string, result json.RawMessage) (bool, error)
}

// RunnerFunc adapts a function to the Runner interface.
type RunnerFunc func(ctx context.Context, typ string, params json.RawMessage) (json.RawMessage, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, typ string, params json.RawMessage) (json.RawMessage, error) {
	return f(ctx, typ, params)
}

// Status is the lifecycle state of a Run, spelled as the peer spells it.
type Status string

// Run statuses. A run is created Running and ends in exactly one of the other three.
const (
	StatusRunning   Status = "Running"
	StatusFinished  Status = "Finished"
	StatusFailed    Status = "Failed"
	StatusCancelled Status = "Cancelled"
)

// UnmarshalJSON accepts any letter case ("finished", as Ripple wrote it before, or "Finished").
func (s *Status) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("run status must be a string: %w", err)
	}
	for _, st := range []Status{StatusRunning, StatusFinished, StatusFailed, StatusCancelled} {
		if strings.EqualFold(v, string(st)) {
			*s = st
			return nil
		}
	}
	return fmt.Errorf("unknown run status %q: use Running, Finished, Failed or Cancelled", v)
}

// Trigger says who started a run or created a check.
type Trigger string

// Triggers, spelled as the peer spells them.
const (
	TriggerUser  Trigger = "user"
	TriggerAgent Trigger = "recce_ai"
)

// UnmarshalJSON accepts "user", "recce_ai" and the deprecated "agent"; empty means user.
func (t *Trigger) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("triggered_by must be a string: %w", err)
	}
	nt, err := ParseTrigger(v)
	if err != nil {
		return err
	}
	*t = nt
	return nil
}

// ParseTrigger parses a triggered_by value: "" is user; "agent" (Ripple's old spelling) and
// "ai" are recce_ai.
func ParseTrigger(v string) (Trigger, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "user":
		return TriggerUser, nil
	case "recce_ai", "agent", "ai":
		return TriggerAgent, nil
	}
	return "", fmt.Errorf("unknown triggered_by %q: use user or recce_ai", v)
}

// Run is the record of one executed diff. Its JSON is the peer's Run dump (see runJSON).
type Run struct {
	ID          string
	Type        string
	Params      json.RawMessage
	Status      Status
	Result      json.RawMessage
	Error       string
	StartedAt   time.Time
	FinishedAt  *time.Time
	TriggeredBy Trigger
	CheckID     string
	// Name is the display name; empty means DefaultName(Type, Params).
	Name string
}

// runTimeLayout is the peer's run_at format: UTC, whole seconds.
const runTimeLayout = "2006-01-02T15:04:05Z"

// runJSON is the JSON of a Run: every key of the peer's Run dump is present, null when unset.
type runJSON struct {
	ID          string          `json:"run_id" jsonschema:"run id"`
	Type        string          `json:"type" jsonschema:"the operation"`
	Name        string          `json:"name" jsonschema:"display name"`
	Params      json.RawMessage `json:"params" jsonschema:"its parameters"`
	CheckID     *string         `json:"check_id" jsonschema:"its check, or null"`
	Result      json.RawMessage `json:"result" jsonschema:"the tool's result; null unless Finished"`
	Error       *string         `json:"error" jsonschema:"error, or null"`
	Status      Status          `json:"status" jsonschema:"Running, Finished, Failed or Cancelled"`
	Progress    json.RawMessage `json:"progress" jsonschema:"null: progress is sent as MCP notifications"`
	RunAt       string          `json:"run_at" jsonschema:"UTC start, YYYY-MM-DDTHH:MM:SSZ"`
	TriggeredBy Trigger         `json:"triggered_by" jsonschema:"user or recce_ai"`
	FinishedAt  *string         `json:"finished_at,omitempty" jsonschema:"UTC end"`
	// StartedAt is how Ripple spelled run_at before the seed contract; read, never written.
	StartedAt *time.Time `json:"started_at,omitempty"`
}

// MarshalJSON writes the peer's Run dump.
func (r Run) MarshalJSON() ([]byte, error) {
	j := runJSON{ID: r.ID, Type: r.Type, Name: r.Name, Params: r.Params, Status: r.Status, TriggeredBy: r.TriggeredBy,
		RunAt: r.StartedAt.UTC().Format(runTimeLayout), Result: r.Result, Progress: json.RawMessage("null")}
	if j.Name == "" {
		j.Name = DefaultName(r.Type, r.Params)
	}
	if len(j.Params) == 0 {
		j.Params = json.RawMessage("{}")
	}
	if len(j.Result) == 0 {
		j.Result = json.RawMessage("null")
	}
	if r.CheckID != "" {
		j.CheckID = &r.CheckID
	}
	if r.Error != "" {
		j.Error = &r.Error
	}
	if r.FinishedAt != nil {
		f := r.FinishedAt.UTC().Format(runTimeLayout)
		j.FinishedAt = &f
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a Run written by Ripple (any version) or by the peer.
func (r *Run) UnmarshalJSON(b []byte) error {
	var j runJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Run{ID: j.ID, Type: j.Type, Name: j.Name, Params: j.Params, Status: j.Status, TriggeredBy: j.TriggeredBy}
	if len(j.Result) > 0 && string(j.Result) != "null" {
		r.Result = j.Result
	}
	if j.CheckID != nil {
		r.CheckID = *j.CheckID
	}
	if j.Error != nil {
		r.Error = *j.Error
	}
	switch {
	case j.RunAt != "":
		t, err := parseRunTime(j.RunAt)
		if err != nil {
			return fmt.Errorf("run %s: run_at: %w", j.ID, err)
		}
		r.StartedAt = t
	case j.StartedAt != nil:
		r.StartedAt = j.StartedAt.UTC()
	}
	if j.FinishedAt != nil {
		t, err := parseRunTime(*j.FinishedAt)
		if err != nil {
			return fmt.Errorf("run %s: finished_at: %w", j.ID, err)
		}
		r.FinishedAt = &t
	}
	return nil
}

// parseRunTime reads the peer's layout or any RFC 3339 time.
func parseRunTime(s string) (time.Time, error) {
	if t, err := time.Parse(runTimeLayout, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err
}

// RunSchema is the JSON Schema of a Run's JSON (the peer's Run dump).
func RunSchema() *jsonschema.Schema {
	s, err := jsonschema.For[runJSON](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
	}})
	if err != nil {
		panic(err) // a static type: cannot fail
	}
	s.Properties["params"].Type = "object"
	delete(s.Properties, "started_at")
	s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(n string) bool { return n == "started_at" })
	return s
}

// Succeeded reports whether the run finished without error.
func (r Run) Succeeded() bool { return r.Status == StatusFinished && r.Error == "" }

// Check is a saved diff that a reviewer (or agent) can run and approve.
type Check struct {
	ID          string          `json:"check_id" jsonschema:"check id"`
	Name        string          `json:"name" jsonschema:"display name"`
	Description string          `json:"description" jsonschema:"description, or empty"`
	Type        string          `json:"type" jsonschema:"the operation it runs"`
	Params      json.RawMessage `json:"params" jsonschema:"its parameters"`
	IsChecked   bool            `json:"is_checked" jsonschema:"approved"`
	IsPreset    bool            `json:"is_preset" jsonschema:"defined in ripple.yml"`
	CreatedAt   time.Time       `json:"created_at" jsonschema:"created (UTC)"`
	UpdatedAt   time.Time       `json:"updated_at" jsonschema:"last change (UTC)"`
	LastRunID   string          `json:"last_run_id,omitempty" jsonschema:"last run"`
	// LastRunAt is the start time of the last run; it drives Outdated.
	LastRunAt *time.Time `json:"last_run_at,omitempty" jsonschema:"last run start (UTC)"`
}

// Outdated reports whether the artifacts (manifest/catalog) are newer than the check's last run,
// so the stored result may no longer describe the current builds. A check that has never run is
// not outdated (it has no result to be stale; LastRunID == "" tells callers it was never run).
// A zero artifactsModTime means unknown and is never newer.
func (c Check) Outdated(artifactsModTime time.Time) bool {
	if c.LastRunAt == nil || artifactsModTime.IsZero() {
		return false
	}
	return artifactsModTime.After(*c.LastRunAt)
}

// key is the identity used for idempotent create and preset matching: type + canonical params.
func (c Check) key() string { return checkKey(c.Type, c.Params) }

func checkKey(typ string, canonicalParams json.RawMessage) string {
	return typ + "\x00" + string(canonicalParams)
}

// newID returns a random RFC 4122 version 4 UUID string.
func newID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand.Read never returns an error on supported platforms (Go ≥1.24 crashes instead).
		panic(fmt.Sprintf("crypto/rand failed: %v", err))
	}
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}
