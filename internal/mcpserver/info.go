package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// ServerInfoInput takes no arguments.
type ServerInfoInput struct{}

// ServerInfo describes the running server.
type ServerInfo struct {
	Mode        string `json:"mode" jsonschema:"server, preview or read-only"`
	Backend     string `json:"backend" jsonschema:"always local: Ripple reads local dbt artifacts"`
	AdapterType string `json:"adapter_type" jsonschema:"dbt"`
	SingleEnv   bool   `json:"single_env" jsonschema:"true when no base build exists: diffs compare current against itself"`
	BaseStatus  string `json:"base_status" jsonschema:"single_env, fresh, stale_time (base manifest older than 48 hours), or unknown when artifacts cannot be loaded"`
	ProjectDir  string `json:"project_dir"`
	// TargetPath and TargetBasePath are as configured; the *_dir fields are resolved.
	TargetPath        string          `json:"target_path"`
	TargetBasePath    string          `json:"target_base_path"`
	CurrentDir        string          `json:"current_dir"`
	BaseDir           string          `json:"base_dir"`
	ArtifactsLoaded   bool            `json:"artifacts_loaded"`
	ArtifactLoadError string          `json:"artifact_load_error,omitempty" jsonschema:"why the artifacts could not be loaded and how to fix it"`
	SupportTasks      map[string]bool `json:"support_tasks" jsonschema:"every registry operation and whether this mode serves it"`
	Tools             []string        `json:"tools" jsonschema:"the tools available in this mode"`
	Version           string          `json:"version"`
	Warnings          []string        `json:"warnings,omitempty" jsonschema:"what the warehouse connection allows beyond reading (a superuser login, a role that can write or create) and how to fix it; empty when the login has only the read grants Ripple needs or no warehouse is open (server mode opens it)"`
}

// SetBackendInput re-points the server.
type SetBackendInput struct {
	Mode           string `json:"mode,omitempty" jsonschema:"local (default); cloud is not supported"`
	ProjectDir     string `json:"project_dir,omitempty" jsonschema:"dbt project directory (default: unchanged)"`
	TargetPath     string `json:"target_path,omitempty" jsonschema:"current build artifacts relative to project_dir (default target)"`
	TargetBasePath string `json:"target_base_path,omitempty" jsonschema:"base build artifacts relative to project_dir (default target-base)"`
}

// SetBackendResult is the new configuration.
type SetBackendResult struct {
	Mode           string `json:"mode"`
	AdapterType    string `json:"adapter_type"`
	SingleEnv      bool   `json:"single_env"`
	ProjectDir     string `json:"project_dir"`
	TargetPath     string `json:"target_path"`
	TargetBasePath string `json:"target_base_path"`
}

const staleAfter = 48 * time.Hour

func (s *Server) mcpOnlyOps() *ops.Registry {
	r := ops.NewRegistry()
	ops.Add(r, ops.Spec{
		Name:  "get_server_info",
		Title: "Server info",
		Description: "Describe the Ripple MCP server: mode (server/preview/read-only), adapter_type, single_env " +
			"(true = no base build, diffs show no change), base_status, the project and artifact paths, " +
			"artifact_load_error when the artifacts cannot be loaded (with how to fix it), the available tools and the version. " +
			"Call it first when other tools fail.",
	}, func(ctx context.Context, _ *ops.Session, _ *ServerInfoInput) (*ServerInfo, error) {
		return s.info(ctx), nil
	}, nil)
	ops.Add(r, ops.Spec{
		Name:  "set_backend",
		Title: "Set backend",
		Description: "Re-point the server at another dbt project or other artifact directories (mode 'local'). " +
			"Fields left out keep their current value. The artifacts are loaded at once; on failure the previous " +
			"configuration stays and the error says what is missing. mode 'cloud' is not supported.",
	}, func(ctx context.Context, _ *ops.Session, in *SetBackendInput) (*SetBackendResult, error) {
		return s.setBackend(ctx, in)
	}, nil)
	return r
}

func (s *Server) info(ctx context.Context) *ServerInfo {
	paths := s.sess.Config().Paths
	info := &ServerInfo{
		Mode: string(s.mode), Backend: "local", AdapterType: "dbt",
		ProjectDir: paths.ProjectDir, TargetPath: paths.TargetPath, TargetBasePath: paths.TargetBasePath,
		CurrentDir: absOr(paths.CurrentDir()), BaseDir: absOr(paths.BaseDir()),
		SupportTasks: map[string]bool{}, Tools: s.toolNames(), Version: s.version, BaseStatus: "unknown",
	}
	for _, op := range s.reg.Ops() {
		info.SupportTasks[op.Name] = s.exposed(op)
	}
	if s.mode == ModeServer {
		if c, err := s.sess.Warehouse(ctx); err == nil {
			info.Warnings = warehouse.Warnings(c)
		}
	}
	p, err := s.sess.Project(ctx)
	if err != nil {
		info.ArtifactLoadError = unconfiguredMessage(err)
		info.SingleEnv = s.detectSingleEnv(ctx)
		return info
	}
	info.ArtifactsLoaded = true
	info.SingleEnv = p.SingleEnv
	switch {
	case p.SingleEnv:
		info.BaseStatus = "single_env"
	case p.Base != nil && !p.Base.ModTime.IsZero() && time.Since(p.Base.ModTime) > staleAfter:
		info.BaseStatus = "stale_time"
	default:
		info.BaseStatus = "fresh"
	}
	return info
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func (s *Server) setBackend(ctx context.Context, in *SetBackendInput) (*SetBackendResult, error) {
	switch in.Mode {
	case "", "local":
	case "cloud":
		return nil, fmt.Errorf("set_backend mode 'cloud' is not supported: Ripple works on local dbt artifacts only; " +
			"call set_backend with mode 'local' and project_dir / target_path / target_base_path")
	default:
		return nil, fmt.Errorf("set_backend mode must be 'local', not %q", in.Mode)
	}
	old := s.sess.Config().Paths
	next := old
	if in.ProjectDir != "" {
		if st, err := os.Stat(in.ProjectDir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("project_dir %q is not a directory: pass the dbt project directory (the one holding dbt_project.yml)", in.ProjectDir)
		}
		next.ProjectDir = in.ProjectDir
		next.TargetPath, next.TargetBasePath = "", ""
	}
	if in.TargetPath != "" {
		next.TargetPath = in.TargetPath
	}
	if in.TargetBasePath != "" {
		next.TargetBasePath = in.TargetBasePath
	}
	next = next.WithDefaults()
	s.sess.SetPaths(next)
	p, err := s.sess.Project(ctx)
	if err != nil {
		s.sess.SetPaths(old)
		return nil, fmt.Errorf("the configuration was not changed: %w", err)
	}
	s.log.Info("backend changed", "project_dir", next.ProjectDir, "target_path", next.TargetPath, "target_base_path", next.TargetBasePath, "single_env", p.SingleEnv)
	s.registerTools(p.SingleEnv)
	return &SetBackendResult{
		Mode: "local", AdapterType: "dbt", SingleEnv: p.SingleEnv,
		ProjectDir: next.ProjectDir, TargetPath: next.TargetPath, TargetBasePath: next.TargetBasePath,
	}, nil
}
