package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

// StateVersion is the state-file schema version this build writes and the newest it reads.
const StateVersion = 1

// DefaultStateFile is the state file name used when none is given.
const DefaultStateFile = "ripple_state.json"

var (
	// ErrCorruptState is wrapped by load errors for files that are not a valid Ripple state file.
	ErrCorruptState = errors.New("state file is corrupt")
	// ErrNewerVersion is wrapped by load errors for files written by a newer Ripple.
	ErrNewerVersion = errors.New("state file was written by a newer Ripple")
)

// State is the persistent review: every run, every check, the artifacts both builds were compared
// from (so a review can be reopened without the warehouse) and the git / pull-request context.
//
//	{"version": 1, "generated_at": "...", "runs": [Run...], "checks": [Check...],
//	 "artifacts": {"base": {"manifest": {...}, "catalog": {...}}, "current": {...}},
//	 "git": {"branch": "...", "commit": "..."}, "pull_request": {"url": "...", "number": 1, "title": "..."}}
type State struct {
	Version     int          `json:"version"`
	GeneratedAt time.Time    `json:"generated_at,omitzero"`
	Runs        []Run        `json:"runs"`
	Checks      []Check      `json:"checks"`
	Artifacts   Artifacts    `json:"artifacts"`
	Git         *GitInfo     `json:"git,omitempty"`
	PullRequest *PullRequest `json:"pull_request,omitempty"`
}

// Artifacts holds the dbt artifacts of both environments as opaque JSON, keyed by artifact name
// ("manifest", "catalog"). Ripple never interprets them here except for metadata.generated_at
// when merging.
type Artifacts struct {
	Base    map[string]json.RawMessage `json:"base,omitempty"`
	Current map[string]json.RawMessage `json:"current,omitempty"`
}

// GitInfo is the git context of the current build.
type GitInfo struct {
	Branch string `json:"branch,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// PullRequest is the pull request under review.
type PullRequest struct {
	URL    string `json:"url,omitempty"`
	Number int    `json:"number,omitempty"`
	Title  string `json:"title,omitempty"`
}

// NewState returns an empty state of the current version.
func NewState() *State {
	return &State{Version: StateVersion, Runs: []Run{}, Checks: []Check{}}
}

// DecodeState parses and validates a state file's bytes. Invalid JSON, a missing version or
// inconsistent content wrap ErrCorruptState; a version above StateVersion wraps ErrNewerVersion.
func DecodeState(data []byte) (*State, error) {
	st := NewState()
	st.Version = 0
	if err := json.Unmarshal(data, st); err != nil {
		// A newer version may have changed field types: report the version first.
		var probe struct {
			Version int `json:"version"`
		}
		if json.Unmarshal(data, &probe) == nil && probe.Version > StateVersion {
			return nil, newerVersionError(probe.Version)
		}
		return nil, fmt.Errorf("%w: %s", ErrCorruptState, describeJSONError(data, err))
	}
	switch {
	case st.Version > StateVersion:
		return nil, newerVersionError(st.Version)
	case st.Version == 0:
		return nil, fmt.Errorf("%w: no \"version\" field, so this is not a Ripple state file", ErrCorruptState)
	case st.Version < 0:
		return nil, fmt.Errorf("%w: unsupported version %d", ErrCorruptState, st.Version)
	}
	if st.Runs == nil {
		st.Runs = []Run{}
	}
	if st.Checks == nil {
		st.Checks = []Check{}
	}
	if err := st.normalize(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorruptState, err)
	}
	return st, nil
}

func newerVersionError(v int) error {
	return fmt.Errorf("%w: file version %d, this Ripple reads up to %d; upgrade Ripple to open it", ErrNewerVersion, v, StateVersion)
}

// normalize validates ids and canonicalises params in place.
func (st *State) normalize() error {
	runIDs := make(map[string]bool, len(st.Runs))
	for i := range st.Runs {
		r := &st.Runs[i]
		if r.ID == "" {
			return fmt.Errorf("runs[%d] has no run_id", i)
		}
		if runIDs[r.ID] {
			return fmt.Errorf("runs[%d]: duplicate run_id %s", i, r.ID)
		}
		runIDs[r.ID] = true
		if r.Type == "" {
			return fmt.Errorf("runs[%d] (%s) has no type", i, r.ID)
		}
		if r.Status == "" {
			r.Status = StatusFinished
		}
		if r.TriggeredBy == "" {
			r.TriggeredBy = TriggerUser
		}
		p, err := CanonicalParams(r.Params)
		if err != nil {
			return fmt.Errorf("runs[%d] (%s): %w", i, r.ID, err)
		}
		r.Params = p
	}
	checkIDs := make(map[string]bool, len(st.Checks))
	for i := range st.Checks {
		c := &st.Checks[i]
		if c.ID == "" {
			return fmt.Errorf("checks[%d] has no check_id", i)
		}
		if checkIDs[c.ID] {
			return fmt.Errorf("checks[%d]: duplicate check_id %s", i, c.ID)
		}
		checkIDs[c.ID] = true
		if c.Type == "" {
			return fmt.Errorf("checks[%d] (%s) has no type", i, c.ID)
		}
		p, err := CanonicalParams(c.Params)
		if err != nil {
			return fmt.Errorf("checks[%d] (%s): %w", i, c.ID, err)
		}
		c.Params = p
	}
	return nil
}

// EncodeState renders st as JSON with the current version and without HTML escaping. Runs,
// checks and context are indented for reading and diffing; artifacts (whole dbt manifests,
// often megabytes) are written compactly.
func EncodeState(st *State) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	field := func(name string, v any, indent bool) error {
		fmt.Fprintf(&buf, ",\n  %q: ", name)
		if indent {
			enc.SetIndent("  ", "  ")
		} else {
			enc.SetIndent("", "")
		}
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("encoding state %s: %w", name, err)
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		return nil
	}
	fmt.Fprintf(&buf, "{\n  \"version\": %d", StateVersion)
	runs, checks := st.Runs, st.Checks
	if runs == nil {
		runs = []Run{}
	}
	if checks == nil {
		checks = []Check{}
	}
	fields := []struct {
		name   string
		v      any
		indent bool
		skip   bool
	}{
		{"generated_at", st.GeneratedAt, false, st.GeneratedAt.IsZero()},
		{"git", st.Git, true, st.Git == nil},
		{"pull_request", st.PullRequest, true, st.PullRequest == nil},
		{"checks", checks, true, false},
		{"runs", runs, true, false},
		{"artifacts", st.Artifacts, false, false},
	}
	for _, f := range fields {
		if f.skip {
			continue
		}
		if err := field(f.name, f.v, f.indent); err != nil {
			return nil, err
		}
	}
	buf.WriteString("\n}\n")
	return buf.Bytes(), nil
}

func describeJSONError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return "file is empty"
	}
	if off < 0 {
		return err.Error()
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	return fmt.Sprintf("line %d: %v", line, err)
}

// clone returns a deep-enough copy: slices and maps are copied, raw JSON is shared (never mutated).
func (st *State) clone() *State {
	cp := *st
	cp.Runs = append([]Run(nil), st.Runs...)
	cp.Checks = append([]Check(nil), st.Checks...)
	cp.Artifacts = Artifacts{Base: cloneMap(st.Artifacts.Base), Current: cloneMap(st.Artifacts.Current)}
	if st.Git != nil {
		g := *st.Git
		cp.Git = &g
	}
	if st.PullRequest != nil {
		p := *st.PullRequest
		cp.PullRequest = &p
	}
	return &cp
}

func cloneMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// MergeStats reports what Merge changed.
type MergeStats struct {
	ChecksAdded   int `json:"checks_added"`
	ChecksUpdated int `json:"checks_updated"`
	RunsAdded     int `json:"runs_added"`
}

// Merge imports src into dst:
//   - checks are matched by check_id, else by type+canonical params (presets from ripple.yml get
//     fresh ids in every session, and two checks with the same type+params would break idempotent
//     create); on a match the one with the newer updated_at wins (ties keep dst) while dst keeps its
//     id and position; unmatched checks are appended in src order;
//   - runs are unioned by run_id (dst wins on duplicates) and ordered by started_at;
//   - artifacts: per environment and artifact name, the one with the newer metadata.generated_at
//     wins; missing ones are filled in;
//   - git and pull_request are filled in when dst has none.
func Merge(dst, src *State) MergeStats {
	var stats MergeStats
	byID := make(map[string]int, len(dst.Checks))
	byKey := make(map[string]int, len(dst.Checks))
	for i, c := range dst.Checks {
		byID[c.ID] = i
		if _, dup := byKey[c.key()]; !dup {
			byKey[c.key()] = i
		}
	}
	for _, sc := range src.Checks {
		i, ok := byID[sc.ID]
		if !ok {
			i, ok = byKey[sc.key()]
		}
		if !ok {
			dst.Checks = append(dst.Checks, sc)
			byID[sc.ID] = len(dst.Checks) - 1
			byKey[sc.key()] = len(dst.Checks) - 1
			stats.ChecksAdded++
			continue
		}
		dc := dst.Checks[i]
		if !sc.UpdatedAt.After(dc.UpdatedAt) {
			continue
		}
		oldKey := dc.key()
		id, created := dc.ID, dc.CreatedAt
		dc = sc
		dc.ID = id
		if !created.IsZero() && created.Before(sc.CreatedAt) {
			dc.CreatedAt = created
		}
		dst.Checks[i] = dc
		if oldKey != dc.key() {
			delete(byKey, oldKey)
			byKey[dc.key()] = i
		}
		byID[sc.ID] = i
		stats.ChecksUpdated++
	}

	runIDs := make(map[string]bool, len(dst.Runs))
	for _, r := range dst.Runs {
		runIDs[r.ID] = true
	}
	for _, r := range src.Runs {
		if runIDs[r.ID] {
			continue
		}
		runIDs[r.ID] = true
		dst.Runs = append(dst.Runs, r)
		stats.RunsAdded++
	}
	if stats.RunsAdded > 0 {
		sort.SliceStable(dst.Runs, func(a, b int) bool { return dst.Runs[a].StartedAt.Before(dst.Runs[b].StartedAt) })
	}

	dst.Artifacts.Base = mergeArtifacts(dst.Artifacts.Base, src.Artifacts.Base)
	dst.Artifacts.Current = mergeArtifacts(dst.Artifacts.Current, src.Artifacts.Current)
	if dst.Git == nil && src.Git != nil {
		g := *src.Git
		dst.Git = &g
	}
	if dst.PullRequest == nil && src.PullRequest != nil {
		p := *src.PullRequest
		dst.PullRequest = &p
	}
	return stats
}

func mergeArtifacts(dst, src map[string]json.RawMessage) map[string]json.RawMessage {
	for name, s := range src {
		if len(s) == 0 || isNull(s) {
			continue
		}
		d, ok := dst[name]
		if !ok || len(d) == 0 || isNull(d) || artifactGeneratedAt(s).After(artifactGeneratedAt(d)) {
			if dst == nil {
				dst = make(map[string]json.RawMessage, len(src))
			}
			dst[name] = s
		}
	}
	return dst
}

// artifactGeneratedAt reads metadata.generated_at of a dbt artifact; zero when absent or unparsable.
func artifactGeneratedAt(raw json.RawMessage) time.Time {
	var a struct {
		Metadata struct {
			GeneratedAt string `json:"generated_at"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05Z"} {
		if t, err := time.Parse(layout, a.Metadata.GeneratedAt); err == nil {
			return t
		}
	}
	return time.Time{}
}
