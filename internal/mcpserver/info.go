package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/ops"
)

// ServerInfoInput takes no arguments.
type ServerInfoInput struct{}

// ServerInfo describes the running server.
type ServerInfo struct {
	Mode              string          `json:"mode" jsonschema:"local: Ripple reads the dbt artifacts on disk"`
	AdapterType       string          `json:"adapter_type" jsonschema:"dbt"`
	ReviewMode        bool            `json:"review_mode" jsonschema:"false: artifacts come from the project, not from a state file"`
	SupportTasks      map[string]bool `json:"support_tasks" jsonschema:"the peer's task keys (query, query_base, query_diff, value_diff, value_diff_detail, profile, profile_diff, row_count, row_count_diff, top_k_diff, histogram_diff, profile_distribution, change_analysis): true when this server runs it now"`
	SingleEnv         bool            `json:"single_env" jsonschema:"true when there is no base build: diffs compare current with itself"`
	BaseStatus        string          `json:"base_status" jsonschema:"fresh, stale_time (older than 48 hours), stale_sha (older than a base-branch commit this branch contains), missing, single_env, or unknown"`
	BaseStatusReason  string          `json:"base_status_reason,omitempty" jsonschema:"why, and how to rebuild the base artifacts"`
	ServerMode        string          `json:"server_mode" jsonschema:"server, preview (no warehouse queries) or read-only (preview without check writes)"`
	Toolsets          []string        `json:"toolsets" jsonschema:"the toolsets served (see --toolsets)"`
	ProjectDir        string          `json:"project_dir" jsonschema:"dbt project directory as configured"`
	TargetPath        string          `json:"target_path" jsonschema:"current artifacts, relative to project_dir"`
	TargetBasePath    string          `json:"target_base_path" jsonschema:"base artifacts, relative to project_dir"`
	CurrentDir        string          `json:"current_dir" jsonschema:"current artifacts directory, resolved"`
	BaseDir           string          `json:"base_dir" jsonschema:"base artifacts directory, resolved"`
	ArtifactsLoaded   bool            `json:"artifacts_loaded" jsonschema:"true when both builds' artifacts loaded"`
	ArtifactLoadError string          `json:"artifact_load_error,omitempty" jsonschema:"why the artifacts could not be loaded and how to fix it"`
	Tools             []string        `json:"tools" jsonschema:"the tools served now"`
	Version           string          `json:"version" jsonschema:"Ripple's version"`
}

// SetBackendInput re-points the server.
type SetBackendInput struct {
	Mode           string `json:"mode" enum:"local,cloud" jsonschema:"local; cloud is not supported by Ripple"`
	SessionID      string `json:"session_id,omitempty" jsonschema:"cloud session id (cloud is not supported)"`
	APIToken       string `json:"api_token,omitempty" jsonschema:"cloud API token (cloud is not supported)"`
	ProjectDir     string `json:"project_dir,omitempty" jsonschema:"dbt project directory (default: unchanged)"`
	TargetPath     string `json:"target_path,omitempty" jsonschema:"current artifacts relative to project_dir (default target, or unchanged when project_dir is not given)"`
	TargetBasePath string `json:"target_base_path,omitempty" jsonschema:"base artifacts relative to project_dir (default target-base, or unchanged when project_dir is not given)"`
}

// SetBackendResult is the new configuration.
type SetBackendResult struct {
	Mode           string `json:"mode" jsonschema:"local"`
	AdapterType    string `json:"adapter_type" jsonschema:"dbt"`
	SingleEnv      bool   `json:"single_env" jsonschema:"true when there is no base build"`
	ProjectDir     string `json:"project_dir" jsonschema:"dbt project directory now in use"`
	TargetPath     string `json:"target_path" jsonschema:"current artifacts relative to project_dir"`
	TargetBasePath string `json:"target_base_path" jsonschema:"base artifacts relative to project_dir"`
}

// supportTasks are the peer's task keys and the operation each needs.
func supportTasks() map[string]string {
	return map[string]string{
		"query": "query", "query_base": "query", "query_diff": "query_diff", "value_diff": "value_diff",
		"value_diff_detail": "value_diff_detail", "profile_diff": "profile_diff", "row_count_diff": "row_count_diff",
		"top_k_diff": "top_k_diff", "histogram_diff": "histogram_diff", "change_analysis": "get_cll",
		// Single-environment tasks Ripple does not have.
		"profile": "", "row_count": "", "profile_distribution": "",
	}
}

func (s *Server) mcpOnlyOps() *ops.Registry {
	r := ops.NewRegistry()
	ops.Add(r, ops.Spec{
		Name:  "get_server_info",
		Title: "Server info",
		Description: "Describe the server: mode (local), adapter_type, support_tasks, single_env (no base build: diffs show no change), base_status " +
			"(are the base artifacts usable), server_mode, toolsets, paths, artifact_load_error with how to fix it, tools and version. Call it first when other tools fail.",
	}, func(ctx context.Context, _ *ops.Session, _ *ServerInfoInput) (*ServerInfo, error) {
		return s.info(ctx), nil
	}, nil)
	ops.Add(r, ops.Spec{
		Name:  "set_backend",
		Title: "Set backend",
		Description: "Re-point the server (mode 'local') at another dbt project or artifact directories; fields left out keep their value. " +
			"The artifacts load at once; on failure the previous configuration stays and the error says what is missing. mode 'cloud' is not supported.",
	}, func(ctx context.Context, _ *ops.Session, in *SetBackendInput) (*SetBackendResult, error) {
		return s.setBackend(ctx, in)
	}, nil)
	return r
}

func (s *Server) info(ctx context.Context) *ServerInfo {
	paths := s.sess.Config().Paths
	info := &ServerInfo{
		Mode: "local", AdapterType: "dbt", ServerMode: string(s.mode), Toolsets: s.toolsets,
		ProjectDir: paths.ProjectDir, TargetPath: paths.TargetPath, TargetBasePath: paths.TargetBasePath,
		CurrentDir: absOr(paths.CurrentDir()), BaseDir: absOr(paths.BaseDir()),
		SupportTasks: map[string]bool{}, Tools: s.toolNames(), Version: s.version, BaseStatus: "unknown",
	}
	warehouse := s.sess.Config().OpenWarehouse != nil
	for task, opName := range supportTasks() {
		op, ok := s.lookup(opName)
		info.SupportTasks[task] = ok && (!op.Warehouse || warehouse)
	}
	p, err := s.sess.Project(ctx)
	if err != nil {
		info.ArtifactLoadError = unconfiguredMessage(err)
		info.SingleEnv = s.detectSingleEnv(ctx)
	} else {
		info.ArtifactsLoaded = true
		info.SingleEnv = p.SingleEnv
	}
	if info.SingleEnv {
		info.BaseStatus = "single_env"
		return info
	}
	if f, err := dbt.CheckBaseFreshness(ctx, paths, dbt.FreshnessOptions{}); err == nil {
		info.BaseStatus, info.BaseStatusReason = f.Status, f.Reason
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
	if in.Mode == "cloud" {
		return nil, fmt.Errorf("set_backend mode 'cloud' is not supported: Ripple works on local dbt artifacts only; " +
			"call set_backend with mode 'local' and project_dir / target_path / target_base_path")
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
