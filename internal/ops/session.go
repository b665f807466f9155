package ops

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// DefaultStateFile is where checks and runs are kept unless configured.
const DefaultStateFile = "ripple_state.json"

// Config is what a session needs to find the project and the warehouse.
type Config struct {
	Paths dbt.Paths
	// OpenWarehouse opens the connection lazily on the first operation
	// that needs it; it gets the loaded project (e.g. for the DuckDB catalog
	// name). Nil means no warehouse is configured.
	OpenWarehouse func(ctx context.Context, p *dbt.Project) (warehouse.Conn, error)
	// StatePath is the checks/runs state file.
	StatePath string
	// Runs bounds the run history kept in memory and in the state file.
	Runs checks.RunLimits
	// AllowedDirs are directories besides the project's that file inputs
	// (compare_observed) may be read from.
	AllowedDirs []string
	Logger      *slog.Logger
	// KeepCosmetic keeps dbt's plain state:modified.body meaning in the
	// impact model: a model whose edit the SQL parser finds cosmetic only
	// (layout, comments, aliases) stays impacted (--keep-cosmetic).
	KeepCosmetic bool
}

// Session holds the loaded project, its comparison and the warehouse
// connection. The CLI makes one per process; the MCP server keeps one and
// serves many calls from it, so everything here is safe for concurrent use
// and re-validated cheaply on every call.
type Session struct {
	mu      sync.Mutex
	cfg     Config
	project *dbt.Project
	cmp     *lineage.Comparison
	stamp   string
	conn    warehouse.Conn
	caches  *memo
	store   *checks.Store
	reg     *Registry
	// cllCache is content-keyed, so it survives artifact reloads.
	cllCache *cll.Cache
}

// registry is the operation catalogue used to run checks.
func (s *Session) registry() *Registry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reg == nil {
		s.reg = Default()
	}
	return s.reg
}

// NewSession returns a session; nothing is loaded until first use.
func NewSession(cfg Config) *Session {
	cfg.Paths = cfg.Paths.WithDefaults()
	if cfg.StatePath == "" {
		cfg.StatePath = DefaultStateFile
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Session{cfg: cfg, caches: newMemo(maxCachedEntries), cllCache: cll.NewCache()}
}

// Config returns the session's configuration.
func (s *Session) Config() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// Logger is the session's logger (stderr or a file, never stdout).
func (s *Session) Logger() *slog.Logger { return s.cfg.Logger }

// SetPaths re-points the session at another project or target paths. The
// next call reloads the artifacts and reopens the warehouse: the new project
// may name another database (its DuckDB file, its profile).
func (s *Session) SetPaths(p dbt.Paths) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Paths = p.WithDefaults()
	s.project, s.cmp, s.stamp = nil, nil, ""
	s.caches.clear()
	if s.conn != nil {
		if err := s.conn.Close(); err != nil {
			s.cfg.Logger.Warn("closing the previous project's warehouse connection", "error", err)
		}
		s.conn = nil
	}
}

// Project returns the loaded project, reloading it when any artifact file
// changed on disk since the last call (a stat per file, so it is cheap
// enough to run on every MCP call).
func (s *Session) Project(ctx context.Context) (*dbt.Project, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.projectLocked(ctx)
}

func (s *Session) projectLocked(ctx context.Context) (*dbt.Project, error) {
	stamp := artifactStamp(s.cfg.Paths)
	if s.project != nil && stamp == s.stamp {
		return s.project, nil
	}
	p, err := dbt.LoadProject(ctx, s.cfg.Paths)
	if err != nil {
		return nil, err
	}
	s.project, s.stamp, s.cmp = p, stamp, nil
	s.caches.clear()
	return p, nil
}

// Comparison returns the lineage comparison of the current project.
func (s *Session) Comparison(ctx context.Context) (*lineage.Comparison, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.projectLocked(ctx)
	if err != nil {
		return nil, err
	}
	if s.cmp == nil {
		s.cmp = lineage.Compare(p)
	}
	return s.cmp, nil
}

// Cached returns a value computed once per loaded project under key. It is
// how analysis results (column lineage, ERD) survive between MCP calls and
// are dropped when the artifacts change. At most maxCachedEntries values
// are kept, the least recently used going first.
func (s *Session) Cached(ctx context.Context, key string, build func(*dbt.Project) (any, error)) (any, error) {
	s.mu.Lock()
	p, err := s.projectLocked(ctx)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if v, ok := s.caches.get(key); ok {
		s.mu.Unlock()
		return v, nil
	}
	s.mu.Unlock()
	v, err := build(p)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.project == p {
		s.caches.put(key, v)
	}
	return v, nil
}

// maxCachedEntries bounds the values a session keeps per loaded project:
// memoized results are keyed by their input, so a long-running MCP or web
// server asked about many nodes would otherwise grow without limit. The
// analyses that computing a result reads (column lineage, the static
// lineage) are touched by every miss, so they stay recent while in use;
// one evicted is rebuilt, its models from the content-keyed cll cache.
const maxCachedEntries = 256

// memo is a least-recently-used map of at most max values. It is not
// safe for concurrent use: Session.mu guards it.
type memo struct {
	max   int
	order *list.List // of *memoEntry, most recent first
	byKey map[string]*list.Element
}

type memoEntry struct {
	key string
	v   any
}

func newMemo(max int) *memo {
	return &memo{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

func (m *memo) get(key string) (any, bool) {
	e, ok := m.byKey[key]
	if !ok {
		return nil, false
	}
	m.order.MoveToFront(e)
	return e.Value.(*memoEntry).v, true
}

func (m *memo) put(key string, v any) {
	if e, ok := m.byKey[key]; ok {
		e.Value.(*memoEntry).v = v
		m.order.MoveToFront(e)
		return
	}
	m.byKey[key] = m.order.PushFront(&memoEntry{key: key, v: v})
	for m.order.Len() > m.max {
		last := m.order.Back()
		m.order.Remove(last)
		delete(m.byKey, last.Value.(*memoEntry).key)
	}
}

func (m *memo) len() int { return m.order.Len() }

func (m *memo) clear() {
	m.order.Init()
	m.byKey = map[string]*list.Element{}
}

// ErrNoWarehouse is returned by operations that need a warehouse when none is configured.
var ErrNoWarehouse = errors.New("no warehouse connection is configured")

// Warehouse returns the warehouse connection, opening it on first use.
func (s *Session) Warehouse(ctx context.Context) (warehouse.Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		return s.conn, nil
	}
	if s.cfg.OpenWarehouse == nil {
		return nil, fmt.Errorf("%w: pass --duckdb PATH or configure profiles.yml (--profiles-dir, --profile, --target)", ErrNoWarehouse)
	}
	p, err := s.projectLocked(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.cfg.OpenWarehouse(ctx, p)
	if err != nil {
		return nil, err
	}
	for _, w := range warehouse.Warnings(c) {
		s.cfg.Logger.Warn(w)
	}
	s.conn = c
	return c, nil
}

// openedWarehouse is the connection when one is open, nil otherwise; it
// never opens one.
func (s *Session) openedWarehouse() warehouse.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn
}

// Close writes pending run history and releases the warehouse connection.
func (s *Session) Close() error {
	s.mu.Lock()
	store := s.store
	s.mu.Unlock()
	if _, err := os.Stat(s.cfg.StatePath); store != nil && err == nil {
		// Ad-hoc run history is written lazily (checks.Store.Save); write what is pending.
		if err := store.Flush(context.Background()); err != nil {
			s.cfg.Logger.Warn("could not save the checks state", "path", s.cfg.StatePath, "error", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		err := s.conn.Close()
		s.conn = nil
		return err
	}
	return nil
}

// artifactStamp fingerprints the artifact files by size and mtime.
func artifactStamp(p dbt.Paths) string {
	var b strings.Builder
	for _, dir := range []string{p.CurrentDir(), p.BaseDir()} {
		for _, f := range []string{dbt.ManifestFile, dbt.CatalogFile, dbt.RunResultsFile} {
			st, err := os.Stat(filepath.Join(dir, f))
			if err != nil {
				b.WriteString("-;")
				continue
			}
			fmt.Fprintf(&b, "%d:%d;", st.Size(), st.ModTime().UnixNano())
		}
	}
	return b.String()
}

// ArtifactsModTime is the newest artifact modification time; checks whose
// last run is older are outdated.
func ArtifactsModTime(p *dbt.Project) time.Time {
	t := p.Current.ModTime
	if p.Base.ModTime.After(t) {
		t = p.Base.ModTime
	}
	return t
}
