package web

import (
	"context"
	"net/http"
	"time"

	"github.com/ripple-data/ripple/internal/dbt"
)

// Info is GET /api/info: what the top bar shows, and what the UI needs to
// know about this server. The UI polls it; artifacts_version changes when
// the session reloaded changed artifacts, which prompts a reload.
type Info struct {
	Version     string `json:"version" jsonschema:"Ripple version"`
	ProjectName string `json:"project_name" jsonschema:"dbt project name (current manifest)"`
	AdapterType string `json:"adapter_type" jsonschema:"dbt adapter of the current build, e.g. duckdb"`
	ProjectDir  string `json:"project_dir"`
	// Current and Base describe the two builds' manifests.
	Current          ArtifactInfo `json:"current"`
	Base             ArtifactInfo `json:"base"`
	SingleEnv        bool         `json:"single_env" jsonschema:"no base build: every comparison shows no change"`
	SingleEnvWarning string       `json:"single_env_warning,omitempty"`
	// BaseStatus is the verdict of `ripple check-base` (fresh, stale, missing).
	BaseStatus *BaseStatus `json:"base_status,omitempty"`
	// ArtifactsVersion counts artifact (re)loads in this server.
	ArtifactsVersion int    `json:"artifacts_version"`
	LoadError        string `json:"load_error,omitempty" jsonschema:"why the artifacts cannot be loaded and how to fix it"`
	ReadOnly         bool   `json:"read_only" jsonschema:"check writes are refused and hidden"`
	Warehouse        bool   `json:"warehouse" jsonschema:"a warehouse connection is configured (data diffs can run)"`
	StateFile        string `json:"state_file"`
	// Operations are the registry's operations this server serves.
	Operations []OpInfo `json:"operations"`
}

// ArtifactInfo is one build's manifest.
type ArtifactInfo struct {
	Dir         string    `json:"dir"`
	GeneratedAt string    `json:"generated_at,omitempty" jsonschema:"manifest metadata.generated_at"`
	ModifiedAt  time.Time `json:"modified_at" jsonschema:"manifest file modification time"`
}

// BaseStatus is the staleness of the base build.
type BaseStatus struct {
	Status string `json:"status" jsonschema:"fresh, stale or missing"`
	Reason string `json:"reason"`
}

// OpInfo describes one operation for the UI.
type OpInfo struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Warehouse   bool   `json:"warehouse"`
	WritesState bool   `json:"writes_state"`
}

// baseStatusTTL bounds how often the check-base rule (which may run git)
// is evaluated while the artifacts stay the same.
const baseStatusTTL = time.Minute

func (s *Server) handleInfo(w http.ResponseWriter, r *http.Request) {
	cfg := s.o.Session.Config()
	info := Info{
		Version: s.o.Version, ProjectDir: cfg.Paths.ProjectDir, ReadOnly: s.o.ReadOnly,
		Warehouse: cfg.OpenWarehouse != nil, StateFile: cfg.StatePath, Operations: []OpInfo{},
		Current: ArtifactInfo{Dir: cfg.Paths.CurrentDir()}, Base: ArtifactInfo{Dir: cfg.Paths.BaseDir()},
	}
	for _, op := range s.o.Registry.Ops() {
		if s.o.ReadOnly && op.WritesState {
			continue
		}
		info.Operations = append(info.Operations, OpInfo{Name: op.Name, Title: op.Title, Warehouse: op.Warehouse, WritesState: op.WritesState})
	}
	p, err := s.o.Session.Project(r.Context())
	if err != nil {
		info.LoadError = err.Error()
		writeJSON(w, http.StatusOK, info)
		return
	}
	info.ArtifactsVersion = s.generation(p)
	md := p.Current.Manifest.Metadata
	info.ProjectName, info.AdapterType = md.ProjectName, md.AdapterType
	info.Current = artifactInfo(p.Current)
	info.SingleEnv = p.SingleEnv
	if p.SingleEnv {
		info.SingleEnvWarning = dbt.SingleEnvWarning
	} else {
		info.Base = artifactInfo(p.Base)
	}
	info.BaseStatus = s.baseStatus(info.ArtifactsVersion)
	writeJSON(w, http.StatusOK, info)
}

func artifactInfo(e *dbt.Env) ArtifactInfo {
	return ArtifactInfo{Dir: e.Dir, GeneratedAt: e.Manifest.Metadata.GeneratedAt, ModifiedAt: e.ModTime.UTC()}
}

// generation counts the distinct projects the session has loaded: the
// session replaces its *dbt.Project exactly when an artifact changed.
func (s *Server) generation(p *dbt.Project) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded != p {
		s.loaded = p
		s.gen++
	}
	return s.gen
}

// baseStatus returns the last known staleness of the base build and, when
// it is older than the artifacts or baseStatusTTL, refreshes it in the
// background: the rule loads the base manifest and may run git, which the
// top bar's poll must not wait for.
func (s *Server) baseStatus(gen int) *BaseStatus {
	if s.o.BaseStatus == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if (s.baseStat == nil || s.baseGen != gen || time.Since(s.baseAt) > baseStatusTTL) && !s.baseBusy {
		s.baseBusy = true
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			st := s.o.BaseStatus(ctx)
			s.mu.Lock()
			s.baseStat, s.baseGen, s.baseAt, s.baseBusy = &st, gen, time.Now(), false
			s.mu.Unlock()
		}()
	}
	if s.baseStat == nil {
		return nil
	}
	st := *s.baseStat
	return &st
}
