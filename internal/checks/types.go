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
	"strings"
	"time"
)

// Runner executes one diff operation. typ is a run type (see KnownTypes) and params its JSON object
// of parameters. The returned result is stored verbatim on the Run. Runner is implemented by the
// operation registry and injected into a Store.
type Runner interface {
	Run(ctx context.Context, typ string, params json.RawMessage) (json.RawMessage, error)
}

// RunnerFunc adapts a function to the Runner interface.
type RunnerFunc func(ctx context.Context, typ string, params json.RawMessage) (json.RawMessage, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, typ string, params json.RawMessage) (json.RawMessage, error) {
	return f(ctx, typ, params)
}

// Status is the lifecycle state of a Run.
type Status string

// Run statuses. A run is created Running and ends in exactly one of the other three.
const (
	StatusRunning   Status = "running"
	StatusFinished  Status = "finished"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
)

// UnmarshalJSON accepts the canonical lowercase values and, for files written by other tools,
// any letter case ("Finished").
func (s *Status) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("run status must be a string: %w", err)
	}
	switch st := Status(strings.ToLower(v)); st {
	case StatusRunning, StatusFinished, StatusFailed, StatusCancelled:
		*s = st
		return nil
	}
	return fmt.Errorf("unknown run status %q: use running, finished, failed or cancelled", v)
}

// Trigger says who started a run or created a check.
type Trigger string

// Triggers. Agent-triggered creates and runs auto-approve a check when the run succeeds.
const (
	TriggerUser  Trigger = "user"
	TriggerAgent Trigger = "agent"
)

// UnmarshalJSON accepts "user", "agent" and Recce's "recce_ai" (read as agent); empty means user.
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

// ParseTrigger parses a triggered_by value; "" is user, "recce_ai" is agent.
func ParseTrigger(v string) (Trigger, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "user":
		return TriggerUser, nil
	case "agent", "recce_ai", "ai":
		return TriggerAgent, nil
	}
	return "", fmt.Errorf("unknown triggered_by %q: use user or agent", v)
}

// Run is the record of one executed diff.
type Run struct {
	ID          string          `json:"run_id" jsonschema:"run id (uuid)"`
	Type        string          `json:"type" jsonschema:"run type, e.g. row_count_diff"`
	Params      json.RawMessage `json:"params" jsonschema:"parameters the run was executed with (JSON object)"`
	Status      Status          `json:"status" jsonschema:"running, finished, failed or cancelled"`
	Result      json.RawMessage `json:"result,omitempty" jsonschema:"operation result when finished"`
	Error       string          `json:"error,omitempty" jsonschema:"error message when failed or cancelled"`
	StartedAt   time.Time       `json:"started_at" jsonschema:"UTC start time"`
	FinishedAt  *time.Time      `json:"finished_at,omitempty" jsonschema:"UTC end time"`
	TriggeredBy Trigger         `json:"triggered_by" jsonschema:"user or agent"`
	CheckID     string          `json:"check_id,omitempty" jsonschema:"check this run belongs to, if any"`
}

// Succeeded reports whether the run finished without error.
func (r Run) Succeeded() bool { return r.Status == StatusFinished && r.Error == "" }

// Check is a saved diff that a reviewer (or agent) can run and approve.
type Check struct {
	ID          string          `json:"check_id" jsonschema:"check id (uuid)"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Type        string          `json:"type" jsonschema:"run type the check executes"`
	Params      json.RawMessage `json:"params" jsonschema:"canonical JSON object of parameters"`
	IsChecked   bool            `json:"is_checked" jsonschema:"approved by a reviewer or a successful agent run"`
	IsPreset    bool            `json:"is_preset" jsonschema:"defined in ripple.yml"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
	LastRunID   string          `json:"last_run_id,omitempty"`
	// LastRunAt is the start time of the last run; it drives Outdated.
	LastRunAt *time.Time `json:"last_run_at,omitempty"`
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
