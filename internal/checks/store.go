package checks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

var (
	// ErrNotFound is wrapped when a check or run id does not exist.
	ErrNotFound = errors.New("not found")
	// ErrNoRunner is returned when a run is requested from a Store built without a Runner.
	ErrNoRunner = errors.New("no runner configured: this store cannot execute diffs")
	// ErrNoStateFile is returned by Save on a Store built without a StateFile.
	ErrNoStateFile = errors.New("no state file configured")
	// ErrDuplicate is wrapped when an update would give a check the type+params of another check.
	ErrDuplicate = errors.New("a check with the same type and params already exists")
	// ErrNotRunning is wrapped by CancelRun for runs that already ended.
	ErrNotRunning = errors.New("run is not running")
)

// Config configures a Store.
type Config struct {
	// Runner executes diffs; required for Execute, RunCheck and Create with Run.
	Runner Runner
	// File is where Save writes (optional).
	File *StateFile
	// AutoSave writes File after every mutation; the mutation's error then includes save failures
	// (the in-memory change is kept either way).
	AutoSave bool
	// Now returns the current time (UTC is applied); nil means time.Now.
	Now func() time.Time
	// Runs bounds the run history in memory and in the file (see RunLimits).
	Runs RunLimits
}

// historyFlushInterval is how long runs that are not a check's (ad-hoc query history) may wait
// in memory before a Save writes them; Flush writes them at once. Checks, approvals and the runs
// of checks are written by every Save.
const historyFlushInterval = 10 * time.Second

// Store holds the runs and checks of one review and implements their lifecycle. All methods are
// safe for concurrent use; diffs execute outside the store lock.
type Store struct {
	cfg Config

	mu      sync.Mutex
	st      *State
	version uint64 // bumped by every mutation
	durable uint64 // version of the last mutation that is not only ad-hoc run history
	cancels map[string]context.CancelFunc
	// base is the state file as this store last read or wrote it: what a save merges against.
	base  *State
	dirty dirtyFields
	// aliases maps ids of checks merged into another writer's same check to the id kept.
	aliases map[string]string

	saveMu       sync.Mutex
	savedVersion uint64
	saved        bool
	lastWrite    time.Time
}

// NewStore returns a Store holding a copy of initial (nil means an empty state). Runs that
// initial still shows as running belong to a process that ended before they finished: they are
// marked failed ("interrupted").
func NewStore(cfg Config, initial *State) *Store {
	if initial == nil {
		initial = NewState()
	}
	st := initial.clone()
	st.Version = StateVersion
	for i := range st.Runs {
		if r := &st.Runs[i]; r.Status == StatusRunning {
			r.Status, r.Error = StatusFailed, "interrupted: the process running it ended before it finished; run it again"
		}
	}
	pruneRuns(st, cfg.Runs)
	return &Store{cfg: cfg, st: st, cancels: map[string]context.CancelFunc{}, aliases: map[string]string{}}
}

// OpenStore loads cfg.File (an empty state when it does not exist yet) into a new Store. Corrupt
// or newer-version files are an error.
func OpenStore(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.File == nil {
		return nil, ErrNoStateFile
	}
	st, err := cfg.File.LoadOrNew(ctx)
	if err != nil {
		return nil, err
	}
	s := NewStore(cfg, st)
	s.base = st
	return s, nil
}

func (s *Store) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now().UTC()
	}
	return time.Now().UTC()
}

// State returns a snapshot copy of everything the store holds.
func (s *Store) State() *State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.clone()
}

// Save writes the store to the configured StateFile, merged with what other processes wrote
// there since this store last read or wrote it (a three-way merge by check id under the file
// lock, see merge3), so no process overwrites another's checks; the store then holds the merged
// state. Saves are serialised. A Save with nothing new to write does not touch the file, and ad-hoc
// run history (runs that are no check's) is written at most every historyFlushInterval (or by
// Flush), so a long-lived server does not rewrite and fsync the file on every query.
func (s *Store) Save(ctx context.Context) error { return s.SaveWith(ctx, SaveOptions{}) }

// SaveWith is Save with options: Force replaces a corrupt or newer-version file; Merge writes
// even when nothing changed here (to pick up and re-write other writers' work).
func (s *Store) SaveWith(ctx context.Context, opts SaveOptions) error {
	return s.save(ctx, opts, false)
}

// Flush is Save including pending run history; call it before the process ends.
func (s *Store) Flush(ctx context.Context) error { return s.save(ctx, SaveOptions{}, true) }

func (s *Store) save(ctx context.Context, opts SaveOptions, flush bool) error {
	if s.cfg.File == nil {
		return ErrNoStateFile
	}
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	s.mu.Lock()
	pending := s.version > s.savedVersion
	needed := !s.saved || opts.Force || opts.Merge || s.durable > s.savedVersion ||
		pending && (flush || s.now().Sub(s.lastWrite) >= historyFlushInterval)
	s.mu.Unlock()
	if !needed {
		return nil
	}
	var written *State
	var snapV uint64
	var dirty dirtyFields
	err := s.cfg.File.Update(ctx, opts.Force, func(disk *State, ours bool) (*State, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if ours {
			disk = s.base // the file is still our last write
		}
		out, aliases := merge3(s.base, s.st, disk, s.dirty)
		pruneRuns(out, s.cfg.Runs)
		// The store adopts the merged state: other writers' checks become visible here.
		s.st = out.clone()
		for from, to := range aliases {
			s.aliases[from] = to
		}
		snapV, dirty, written = s.version, s.dirty, out
		s.dirty = dirtyFields{}
		return out, nil
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		// Unsaved singletons stay ours to write next time.
		s.dirty.artifacts = s.dirty.artifacts || dirty.artifacts
		s.dirty.git = s.dirty.git || dirty.git
		s.dirty.pullRequest = s.dirty.pullRequest || dirty.pullRequest
		return err
	}
	s.base = written
	s.saved, s.savedVersion, s.lastWrite = true, snapV, s.now()
	return nil
}

// changed must be called with s.mu held after a mutation.
func (s *Store) changed() {
	s.version++
	s.durable = s.version
}

// changedHistory is changed for a mutation of ad-hoc run history only.
func (s *Store) changedHistory() { s.version++ }

// autosave persists the last mutation when AutoSave is on.
func (s *Store) autosave(ctx context.Context) error {
	if !s.cfg.AutoSave || s.cfg.File == nil {
		return nil
	}
	if err := s.Save(ctx); err != nil {
		return fmt.Errorf("change applied but not saved: %w", err)
	}
	return nil
}

// Import merges another state (e.g. a state file from CI) into the store; see Merge.
func (s *Store) Import(ctx context.Context, other *State) (MergeStats, error) {
	src := other.clone()
	if err := src.normalize(); err != nil {
		return MergeStats{}, fmt.Errorf("importing state: %w", err)
	}
	s.mu.Lock()
	stats := Merge(s.st, src)
	s.dirty.artifacts = s.dirty.artifacts || len(src.Artifacts.Base)+len(src.Artifacts.Current) > 0
	s.dirty.git = s.dirty.git || src.Git != nil
	s.dirty.pullRequest = s.dirty.pullRequest || src.PullRequest != nil
	s.changed()
	s.mu.Unlock()
	return stats, s.autosave(ctx)
}

// SetArtifacts replaces the stored artifacts (manifest/catalog of base and current).
func (s *Store) SetArtifacts(ctx context.Context, a Artifacts) error {
	s.mu.Lock()
	s.st.Artifacts = Artifacts{Base: cloneMap(a.Base), Current: cloneMap(a.Current)}
	s.dirty.artifacts = true
	s.changed()
	s.mu.Unlock()
	return s.autosave(ctx)
}

// SetGit records the git context (nil clears it).
func (s *Store) SetGit(ctx context.Context, g *GitInfo) error {
	s.mu.Lock()
	s.st.Git = nil
	if g != nil {
		cp := *g
		s.st.Git = &cp
	}
	s.dirty.git = true
	s.changed()
	s.mu.Unlock()
	return s.autosave(ctx)
}

// SetPullRequest records the pull request under review (nil clears it).
func (s *Store) SetPullRequest(ctx context.Context, pr *PullRequest) error {
	s.mu.Lock()
	s.st.PullRequest = nil
	if pr != nil {
		cp := *pr
		s.st.PullRequest = &cp
	}
	s.dirty.pullRequest = true
	s.changed()
	s.mu.Unlock()
	return s.autosave(ctx)
}

// ---------------------------------------------------------------------------------------------
// Checks

// CreateInput is the input of Store.Create.
type CreateInput struct {
	Type        string          `json:"type" jsonschema:"run type of the check, e.g. value_diff"`
	Params      json.RawMessage `json:"params" jsonschema:"JSON object of parameters for the run type"`
	Name        string          `json:"name,omitempty" jsonschema:"display name; generated from type and params when empty"`
	Description string          `json:"description,omitempty"`
	TriggeredBy Trigger         `json:"triggered_by,omitempty" jsonschema:"user (default) or agent"`
	// IsPreset marks a check defined in ripple.yml.
	IsPreset bool `json:"is_preset,omitempty"`
	// Run executes the check right after creating/updating it.
	Run bool `json:"run,omitempty"`
}

// CreateResult is the output of Store.Create.
type CreateResult struct {
	CheckID     string `json:"check_id"`
	Created     bool   `json:"created" jsonschema:"false when an existing check with the same type and params was updated"`
	RunExecuted bool   `json:"run_executed"`
	RunError    string `json:"run_error,omitempty"`
	Check       Check  `json:"check"`
	Run         *Run   `json:"run,omitempty"`
}

// Create adds a check, idempotently: when a check with the same type and canonical params exists,
// its name/description are updated (when given non-empty), it becomes a preset if in.IsPreset, and
// the same check is returned with Created=false. With in.Run the check is then executed like
// RunCheck (a failed run is reported in RunError, not as an error). An agent-triggered create
// approves the check only when that run succeeded.
func (s *Store) Create(ctx context.Context, in CreateInput) (CreateResult, error) {
	if err := ValidateParams(in.Type, in.Params); err != nil {
		return CreateResult{}, fmt.Errorf("creating check: %w", err)
	}
	params, err := CanonicalParams(in.Params)
	if err != nil {
		return CreateResult{}, fmt.Errorf("creating check: %w", err)
	}
	trigger := in.TriggeredBy
	if trigger == "" {
		trigger = TriggerUser
	}
	if in.Run && s.cfg.Runner == nil {
		return CreateResult{}, ErrNoRunner
	}
	key := checkKey(in.Type, params)
	now := s.now()

	s.mu.Lock()
	var res CreateResult
	idx := -1
	for i := range s.st.Checks {
		if s.st.Checks[i].key() == key {
			idx = i
			break
		}
	}
	if idx >= 0 {
		c := &s.st.Checks[idx]
		if in.Name != "" {
			c.Name = in.Name
		}
		if in.Description != "" {
			c.Description = in.Description
		}
		c.IsPreset = c.IsPreset || in.IsPreset
		c.UpdatedAt = now
		res.Check = *c
	} else {
		name := in.Name
		if name == "" {
			name = DefaultName(in.Type, params)
		}
		c := Check{
			ID: newID(), Name: name, Description: in.Description, Type: in.Type, Params: params,
			IsPreset: in.IsPreset, CreatedAt: now, UpdatedAt: now,
		}
		s.st.Checks = append(s.st.Checks, c)
		res.Check, res.Created = c, true
	}
	res.CheckID = res.Check.ID
	s.changed()
	s.mu.Unlock()

	if err := s.autosave(ctx); err != nil {
		return res, err
	}
	if !in.Run {
		return res, nil
	}
	run, err := s.RunCheck(ctx, res.CheckID, trigger)
	if err != nil {
		return res, err
	}
	res.Run = &run
	res.RunExecuted = run.Status == StatusFinished
	res.RunError = run.Error
	if c, err := s.Get(res.CheckID); err == nil {
		res.Check = c
	}
	return res, nil
}

// CheckInfo is a check as listed, with values derived from its last run.
type CheckInfo struct {
	Check
	IsOutdated    bool   `json:"is_outdated" jsonschema:"artifacts are newer than the last run"`
	LastRunStatus Status `json:"last_run_status,omitempty"`
	LastRunError  string `json:"last_run_error,omitempty"`
	// Mismatched is the CI verdict of the last successful run (see Mismatch); nil when there is
	// no such run or the type has no verdict.
	Mismatched *bool `json:"mismatched,omitempty"`
}

// ListResult is the output of Store.List.
type ListResult struct {
	Checks   []CheckInfo `json:"checks"`
	Total    int         `json:"total"`
	Approved int         `json:"approved"`
	Outdated int         `json:"outdated"`
}

// List returns all checks in display order with totals. artifactsModTime is the modification time
// of the newest artifact in use (zero: unknown, nothing is outdated).
func (s *Store) List(artifactsModTime time.Time) ListResult {
	s.mu.Lock()
	checks := append([]Check(nil), s.st.Checks...)
	runs := make(map[string]Run, len(checks))
	for _, c := range checks {
		if c.LastRunID == "" {
			continue
		}
		if r, ok := s.findRun(c.LastRunID); ok {
			runs[c.ID] = *r
		}
	}
	s.mu.Unlock()

	res := ListResult{Checks: make([]CheckInfo, 0, len(checks)), Total: len(checks)}
	for _, c := range checks {
		info := CheckInfo{Check: c, IsOutdated: c.Outdated(artifactsModTime)}
		if r, ok := runs[c.ID]; ok {
			info.LastRunStatus, info.LastRunError = r.Status, r.Error
			if r.Succeeded() {
				if m, err := Mismatch(r.Type, r.Result); err == nil && hasVerdict(r.Type) {
					info.Mismatched = &m
				}
			}
		}
		if c.IsChecked {
			res.Approved++
		}
		if info.IsOutdated {
			res.Outdated++
		}
		res.Checks = append(res.Checks, info)
	}
	return res
}

// Get returns one check.
func (s *Store) Get(id string) (Check, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.checkIndex(id)
	if i < 0 {
		return Check{}, notFound("check", id)
	}
	return s.st.Checks[i], nil
}

func notFound(what, id string) error {
	return fmt.Errorf("%s %q %w: list them to see valid ids", what, id, ErrNotFound)
}

// checkIndex finds a check by id, or by an id merged into another writer's same check.
func (s *Store) checkIndex(id string) int {
	if to, ok := s.aliases[id]; ok {
		id = to
	}
	for i := range s.st.Checks {
		if s.st.Checks[i].ID == id {
			return i
		}
	}
	return -1
}

// CheckUpdate is a partial update; nil/empty fields are left unchanged.
type CheckUpdate struct {
	Name        *string         `json:"name,omitempty"`
	Description *string         `json:"description,omitempty"`
	Params      json.RawMessage `json:"params,omitempty" jsonschema:"new params; resets approval and last run"`
	IsChecked   *bool           `json:"is_checked,omitempty"`
}

// Update changes a check. New params are validated; because the stored result no longer matches
// them, they also clear the approval and the last-run link (unless IsChecked is set in the same
// update). Params equal to another check's (same type) fail with ErrDuplicate.
func (s *Store) Update(ctx context.Context, id string, u CheckUpdate) (Check, error) {
	s.mu.Lock()
	i := s.checkIndex(id)
	if i < 0 {
		s.mu.Unlock()
		return Check{}, notFound("check", id)
	}
	c := s.st.Checks[i]
	if len(u.Params) > 0 {
		if err := ValidateParams(c.Type, u.Params); err != nil {
			s.mu.Unlock()
			return Check{}, fmt.Errorf("updating check %s: %w", id, err)
		}
		p, err := CanonicalParams(u.Params)
		if err != nil {
			s.mu.Unlock()
			return Check{}, fmt.Errorf("updating check %s: %w", id, err)
		}
		if string(p) != string(c.Params) {
			key := checkKey(c.Type, p)
			for j := range s.st.Checks {
				if j != i && s.st.Checks[j].key() == key {
					s.mu.Unlock()
					return Check{}, fmt.Errorf("updating check %s: %w (%s)", id, ErrDuplicate, s.st.Checks[j].ID)
				}
			}
			c.Params, c.IsChecked, c.LastRunID, c.LastRunAt = p, false, "", nil
		}
	}
	if u.Name != nil {
		c.Name = *u.Name
	}
	if u.Description != nil {
		c.Description = *u.Description
	}
	if u.IsChecked != nil {
		c.IsChecked = *u.IsChecked
	}
	c.UpdatedAt = s.now()
	s.st.Checks[i] = c
	s.changed()
	s.mu.Unlock()
	return c, s.autosave(ctx)
}

// Approve marks a check as approved (is_checked).
func (s *Store) Approve(ctx context.Context, id string) (Check, error) {
	t := true
	return s.Update(ctx, id, CheckUpdate{IsChecked: &t})
}

// Unapprove clears a check's approval.
func (s *Store) Unapprove(ctx context.Context, id string) (Check, error) {
	f := false
	return s.Update(ctx, id, CheckUpdate{IsChecked: &f})
}

// Delete removes a check. Its runs stay in the history (their check_id then dangles).
func (s *Store) Delete(ctx context.Context, id string) error {
	s.mu.Lock()
	i := s.checkIndex(id)
	if i < 0 {
		s.mu.Unlock()
		return notFound("check", id)
	}
	s.st.Checks = append(s.st.Checks[:i], s.st.Checks[i+1:]...)
	s.changed()
	s.mu.Unlock()
	return s.autosave(ctx)
}

// Reorder moves check id to position index (0-based, in the order after removal), shifting the others.
func (s *Store) Reorder(ctx context.Context, id string, index int) error {
	s.mu.Lock()
	i := s.checkIndex(id)
	if i < 0 {
		s.mu.Unlock()
		return notFound("check", id)
	}
	n := len(s.st.Checks)
	if index < 0 || index >= n {
		s.mu.Unlock()
		return fmt.Errorf("reorder index %d out of range: there are %d checks (valid 0..%d)", index, n, n-1)
	}
	c := s.st.Checks[i]
	rest := append(s.st.Checks[:i:i], s.st.Checks[i+1:]...)
	out := make([]Check, 0, n)
	out = append(out, rest[:index]...)
	out = append(out, c)
	out = append(out, rest[index:]...)
	s.st.Checks = out
	s.changed()
	s.mu.Unlock()
	return s.autosave(ctx)
}

// ---------------------------------------------------------------------------------------------
// Runs

// RunCheck executes a check through the Runner, records the run and links it as the check's last
// run. The returned error is only for a run that could not start (unknown id, no runner); a
// failed or cancelled diff is a Run with that status and Error set. When triggered by an agent and
// the run succeeded, the check is approved; otherwise approval is left as it was.
func (s *Store) RunCheck(ctx context.Context, id string, by Trigger) (Run, error) {
	c, err := s.Get(id)
	if err != nil {
		return Run{}, err
	}
	return s.execute(ctx, c.Type, c.Params, id, by)
}

// Execute runs an ad-hoc diff (not attached to a check) and records it. Errors as in RunCheck.
func (s *Store) Execute(ctx context.Context, typ string, params json.RawMessage, by Trigger) (Run, error) {
	if err := ValidateParams(typ, params); err != nil {
		return Run{}, err
	}
	p, err := CanonicalParams(params)
	if err != nil {
		return Run{}, err
	}
	return s.execute(ctx, typ, p, "", by)
}

func (s *Store) execute(ctx context.Context, typ string, params json.RawMessage, checkID string, by Trigger) (Run, error) {
	if s.cfg.Runner == nil {
		return Run{}, ErrNoRunner
	}
	if by == "" {
		by = TriggerUser
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := s.now()
	run := Run{ID: newID(), Type: typ, Params: params, Status: StatusRunning, StartedAt: start, TriggeredBy: by, CheckID: checkID}

	s.mu.Lock()
	if checkID != "" {
		i := s.checkIndex(checkID)
		if i < 0 {
			s.mu.Unlock()
			return Run{}, notFound("check", checkID)
		}
		c := &s.st.Checks[i]
		c.LastRunID, c.LastRunAt, c.UpdatedAt = run.ID, &start, start
	}
	s.st.Runs = append(s.st.Runs, run)
	pruneRuns(s.st, s.cfg.Runs)
	s.cancels[run.ID] = cancel
	s.changeRun(checkID)
	s.mu.Unlock()

	result, runErr := safeRun(runCtx, s.cfg.Runner, typ, params)

	end := s.now()
	s.mu.Lock()
	delete(s.cancels, run.ID)
	r, ok := s.findRun(run.ID)
	if !ok { // removed meanwhile (should not happen); keep our copy
		r = &run
	}
	if r.Status == StatusRunning {
		switch {
		case runErr != nil && runCtx.Err() != nil:
			r.Status, r.Error = StatusCancelled, runErr.Error()
		case runErr != nil:
			r.Status, r.Error = StatusFailed, runErr.Error()
		case len(result) > 0 && !json.Valid(result):
			r.Status, r.Error = StatusFailed, "the operation returned invalid JSON"
		default:
			r.Status, r.Result = StatusFinished, result
		}
		r.FinishedAt = &end
	}
	pruneRuns(s.st, s.cfg.Runs) // with its result in, the run counts for the byte bound
	if checkID != "" {
		if i := s.checkIndex(checkID); i >= 0 {
			c := &s.st.Checks[i]
			if c.LastRunID == r.ID {
				if by == TriggerAgent && r.Succeeded() {
					c.IsChecked = true
				}
				c.UpdatedAt = end
			}
		}
	}
	out := *r
	s.changeRun(checkID)
	s.mu.Unlock()
	// Persist even when the caller's context was cancelled: the cancelled run is history too.
	return out, s.autosave(context.WithoutCancel(ctx))
}

// changeRun records a run mutation: durable for a check's run, history for an ad-hoc one.
func (s *Store) changeRun(checkID string) {
	if checkID != "" {
		s.changed()
		return
	}
	s.changedHistory()
}

// safeRun calls the runner, turning a panic into an error so one bad operation cannot take the
// process (and the unsaved review) down.
func safeRun(ctx context.Context, r Runner, typ string, params json.RawMessage) (res json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("operation %s panicked: %v", typ, p)
		}
	}()
	return r.Run(ctx, typ, params)
}

func (s *Store) findRun(id string) (*Run, bool) {
	for i := len(s.st.Runs) - 1; i >= 0; i-- {
		if s.st.Runs[i].ID == id {
			return &s.st.Runs[i], true
		}
	}
	return nil, false
}

// CancelRun cancels a running run: its status becomes cancelled immediately and the runner's
// context is cancelled.
func (s *Store) CancelRun(ctx context.Context, id string) (Run, error) {
	s.mu.Lock()
	r, ok := s.findRun(id)
	if !ok {
		s.mu.Unlock()
		return Run{}, notFound("run", id)
	}
	if r.Status != StatusRunning {
		st := r.Status
		s.mu.Unlock()
		return Run{}, fmt.Errorf("run %s is %s: %w", id, st, ErrNotRunning)
	}
	end := s.now()
	r.Status, r.Error, r.FinishedAt = StatusCancelled, "cancelled", &end
	if cancel := s.cancels[id]; cancel != nil {
		cancel()
	}
	out := *r
	s.changeRun(r.CheckID)
	s.mu.Unlock()
	return out, s.autosave(ctx)
}

// GetRun returns one run.
func (s *Store) GetRun(id string) (Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.findRun(id)
	if !ok {
		return Run{}, notFound("run", id)
	}
	return *r, nil
}

// Runs returns all runs in start order; with checkID != "" only that check's runs.
func (s *Store) Runs(checkID string) []Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Run, 0, len(s.st.Runs))
	for _, r := range s.st.Runs {
		if checkID == "" || r.CheckID == checkID {
			out = append(out, r)
		}
	}
	return out
}
