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

// ---------------------------------------------------------------------------------------------
// Three-way merge of concurrent writers

// merge3 returns what a writer should put in the state file: theirs (the file as it is now) with
// the writer's changes since base (the file as the writer last read or wrote it) applied. A check
// or run is the writer's change when it differs from base; one both sides changed goes to the
// newer updated_at (the writer on a tie). What the writer deleted (in base, not in mine) is
// dropped, what another process added (in theirs, not in base) is kept, so no acknowledged check
// is lost to a concurrent writer. Checks two writers created with the same type+params become one
// (the lower id, the newer content); aliases maps every id merged away to the id kept. base nil
// means the writer never saw the file (everything in it is someone else's).
func merge3(base, mine, theirs *State, dirty dirtyFields) (out *State, aliases map[string]string) {
	if base == nil {
		base = NewState()
	}
	out = mine.clone()
	if theirs == nil {
		return out, nil
	}
	out.Checks, aliases = mergeChecks(base.Checks, mine.Checks, theirs.Checks)
	out.Runs = mergeRuns(base.Runs, mine.Runs, theirs.Runs)
	for i := range out.Runs {
		if id, ok := aliases[out.Runs[i].CheckID]; ok {
			out.Runs[i].CheckID = id
		}
	}
	if !dirty.artifacts {
		out.Artifacts = Artifacts{Base: cloneMap(theirs.Artifacts.Base), Current: cloneMap(theirs.Artifacts.Current)}
	}
	if !dirty.git {
		out.Git = nil
		if theirs.Git != nil {
			g := *theirs.Git
			out.Git = &g
		}
	}
	if !dirty.pullRequest {
		out.PullRequest = nil
		if theirs.PullRequest != nil {
			p := *theirs.PullRequest
			out.PullRequest = &p
		}
	}
	return out, aliases
}

// dirtyFields are the state's singletons a writer changed since it last synced.
type dirtyFields struct{ artifacts, git, pullRequest bool }

func sameCheck(a, b Check) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Description == b.Description && a.Type == b.Type &&
		string(a.Params) == string(b.Params) && a.IsChecked == b.IsChecked && a.IsPreset == b.IsPreset &&
		a.CreatedAt.Equal(b.CreatedAt) && a.UpdatedAt.Equal(b.UpdatedAt) && a.LastRunID == b.LastRunID &&
		(a.LastRunAt == nil) == (b.LastRunAt == nil) && (a.LastRunAt == nil || a.LastRunAt.Equal(*b.LastRunAt))
}

func mergeChecks(base, mine, theirs []Check) ([]Check, map[string]string) {
	baseByID := indexChecks(base)
	theirByID := indexChecks(theirs)
	mineByID := indexChecks(mine)
	pick := map[string]Check{} // id → merged check
	for _, m := range mine {
		b, inBase := baseByID[m.ID]
		t, onDisk := theirByID[m.ID]
		switch {
		case !inBase && !onDisk: // created here
			pick[m.ID] = m
		case !inBase: // same id on both sides without a common past: keep the newer
			pick[m.ID] = newer(m, t)
		case sameCheck(m, b) && onDisk: // unchanged here: theirs
			pick[m.ID] = t
		case sameCheck(m, b): // unchanged here, deleted there
		case !onDisk: // changed here, deleted there: the change is newer news
			pick[m.ID] = m
		case sameCheck(t, b):
			pick[m.ID] = m
		default: // changed on both sides
			pick[m.ID] = newer(m, t)
		}
	}
	for _, t := range theirs {
		if _, inMine := mineByID[t.ID]; inMine {
			continue
		}
		if _, inBase := baseByID[t.ID]; inBase {
			continue // deleted here
		}
		pick[t.ID] = t // created there
	}
	// Order: ours when we reordered since base, else theirs; new checks after.
	var order []string
	seen := map[string]bool{}
	add := func(id string) {
		if _, ok := pick[id]; ok && !seen[id] {
			seen[id] = true
			order = append(order, id)
		}
	}
	first, second := theirs, mine
	if reordered(base, mine) {
		first, second = mine, theirs
	}
	for _, c := range first {
		add(c.ID)
	}
	for _, c := range second {
		add(c.ID)
	}
	// Two writers that created the same type+params made one check twice: keep the lower id
	// (both writers choose the same) with the newer content.
	aliases := map[string]string{}
	byKey := map[string]int{}
	out := make([]Check, 0, len(order))
	for _, id := range order {
		c := pick[id]
		if i, dup := byKey[c.key()]; dup {
			keep, drop := out[i], c
			if drop.ID < keep.ID {
				keep, drop = drop, keep
			}
			merged := newer(out[i], c)
			merged.ID = keep.ID
			aliases[drop.ID] = keep.ID
			out[i] = merged
			continue
		}
		byKey[c.key()] = len(out)
		out = append(out, c)
	}
	// A check of ours that the other writer merged into its same check is gone from theirs
	// without being deleted: its id lives on as an alias.
	for _, m := range mine {
		if i, ok := byKey[m.key()]; ok && out[i].ID != m.ID {
			aliases[m.ID] = out[i].ID
		}
	}
	return out, aliases
}

func newer(mine, theirs Check) Check {
	if theirs.UpdatedAt.After(mine.UpdatedAt) {
		return theirs
	}
	return mine
}

func indexChecks(cs []Check) map[string]Check {
	m := make(map[string]Check, len(cs))
	for _, c := range cs {
		m[c.ID] = c
	}
	return m
}

// reordered reports whether the checks mine shares with base are in another order.
func reordered(base, mine []Check) bool {
	inMine := indexChecks(mine)
	inBase := indexChecks(base)
	var a, b []string
	for _, c := range base {
		if _, ok := inMine[c.ID]; ok {
			a = append(a, c.ID)
		}
	}
	for _, c := range mine {
		if _, ok := inBase[c.ID]; ok {
			b = append(b, c.ID)
		}
	}
	for i := range a {
		if a[i] != b[i] {
			return true
		}
	}
	return false
}

// mergeRuns unions the runs: a run only ever changes in the process that ran it, so ours win;
// theirs that are new since base are added; ours that are unchanged since base but gone from
// theirs were pruned there (their history bound) and are dropped here too.
func mergeRuns(base, mine, theirs []Run) []Run {
	baseStatus := make(map[string]Status, len(base))
	for _, r := range base {
		baseStatus[r.ID] = r.Status
	}
	theirIDs := make(map[string]bool, len(theirs))
	for _, r := range theirs {
		theirIDs[r.ID] = true
	}
	mineIDs := make(map[string]bool, len(mine))
	out := make([]Run, 0, len(mine)+len(theirs))
	for _, r := range mine {
		mineIDs[r.ID] = true
		if st, inBase := baseStatus[r.ID]; inBase && st == r.Status && !theirIDs[r.ID] {
			continue
		}
		out = append(out, r)
	}
	added := false
	for _, r := range theirs {
		if _, inBase := baseStatus[r.ID]; !mineIDs[r.ID] && !inBase {
			out = append(out, r)
			added = true
		}
	}
	if added {
		sort.SliceStable(out, func(a, b int) bool { return out[a].StartedAt.Before(out[b].StartedAt) })
	}
	return out
}

// RunLimits bound the run history kept in memory and in the state file. Zero fields take the
// defaults; a negative field disables that bound.
type RunLimits struct {
	// MaxRuns is the most runs kept (DefaultMaxRuns when 0).
	MaxRuns int
	// MaxRunBytes bounds the runs' results and params together (DefaultMaxRunBytes when 0).
	MaxRunBytes int64
}

// Run history defaults: with results capped at 10 MB each, the history stays within tens of MB
// however long a server runs.
const (
	DefaultMaxRuns           = 200
	DefaultMaxRunBytes int64 = 64 << 20
)

func (l RunLimits) effective() (int, int64) {
	n, b := l.MaxRuns, l.MaxRunBytes
	if n == 0 {
		n = DefaultMaxRuns
	}
	if b == 0 {
		b = DefaultMaxRunBytes
	}
	return n, b
}

// pruneRuns drops the oldest runs until the history fits the limits. The last run of every check
// and runs still running are always kept: they are the review's evidence. It reports whether it
// dropped anything.
func pruneRuns(st *State, l RunLimits) bool {
	maxRuns, maxBytes := l.effective()
	keep := make(map[string]bool, len(st.Checks))
	for _, c := range st.Checks {
		if c.LastRunID != "" {
			keep[c.LastRunID] = true
		}
	}
	count, size := len(st.Runs), int64(0)
	for _, r := range st.Runs {
		size += int64(len(r.Result) + len(r.Params))
	}
	over := func() bool { return maxRuns >= 0 && count > maxRuns || maxBytes >= 0 && size > maxBytes }
	if !over() {
		return false
	}
	out := st.Runs[:0:0]
	for i, r := range st.Runs { // oldest first
		if over() && !keep[r.ID] && r.Status != StatusRunning {
			count--
			size -= int64(len(r.Result) + len(r.Params))
			continue
		}
		out = append(out, st.Runs[i])
	}
	st.Runs = out
	return true
}
