package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// ServerInfoInput takes no arguments.
type ServerInfoInput struct{}

// ServerInfo describes the running server.
type ServerInfo struct {
	Mode              string          `json:"mode" jsonschema:"local"`
	AdapterType       string          `json:"adapter_type" jsonschema:"dbt"`
	ReviewMode        bool            `json:"review_mode" jsonschema:"false"`
	SupportTasks      map[string]bool `json:"support_tasks" jsonschema:"task: runnable now"`
	SingleEnv         bool            `json:"single_env" jsonschema:"no base build: diffs show no change"`
	BaseStatus        string          `json:"base_status" jsonschema:"fresh, stale_time, stale_sha, missing, single_env or unknown"`
	BaseStatusReason  string          `json:"base_status_reason,omitempty" jsonschema:"why, and how to rebuild"`
	ServerMode        string          `json:"server_mode" jsonschema:"server, preview or read-only"`
	Toolsets          []string        `json:"toolsets" jsonschema:"toolsets served"`
	ProjectDir        string          `json:"project_dir" jsonschema:"project directory"`
	TargetPath        string          `json:"target_path" jsonschema:"current artifacts dir"`
	TargetBasePath    string          `json:"target_base_path" jsonschema:"base artifacts dir"`
	CurrentDir        string          `json:"current_dir" jsonschema:"resolved"`
	BaseDir           string          `json:"base_dir" jsonschema:"resolved"`
	ArtifactsLoaded   bool            `json:"artifacts_loaded" jsonschema:"artifacts loaded"`
	ArtifactLoadError string          `json:"artifact_load_error,omitempty" jsonschema:"why not, and the fix"`
	Tools             []string        `json:"tools" jsonschema:"tools served"`
	Version           string          `json:"version" jsonschema:"Ripple version"`
	Warnings          []string        `json:"warnings,omitempty" jsonschema:"what the warehouse login allows beyond reading (superuser, write or create grants) and the fix"`
}

// SetBackendInput re-points the server.
type SetBackendInput struct {
	Mode           string `json:"mode" enum:"local,cloud" jsonschema:"local (cloud is not supported)"`
	SessionID      string `json:"session_id,omitempty" jsonschema:"cloud only"`
	APIToken       string `json:"api_token,omitempty" jsonschema:"cloud only"`
	ProjectDir     string `json:"project_dir,omitempty" jsonschema:"dbt project directory (default: unchanged)"`
	TargetPath     string `json:"target_path,omitempty" jsonschema:"current artifacts dir (default target)"`
	TargetBasePath string `json:"target_base_path,omitempty" jsonschema:"base artifacts dir (default target-base)"`
}

// SetBackendResult is the new configuration.
type SetBackendResult struct {
	Mode           string `json:"mode" jsonschema:"local"`
	AdapterType    string `json:"adapter_type" jsonschema:"dbt"`
	SingleEnv      bool   `json:"single_env" jsonschema:"no base build"`
	ProjectDir     string `json:"project_dir" jsonschema:"project directory"`
	TargetPath     string `json:"target_path" jsonschema:"current artifacts dir"`
	TargetBasePath string `json:"target_base_path" jsonschema:"base artifacts dir"`
}

// supportTasks are the peer's task keys and the operation each needs.
func supportTasks() map[string]string {
	return map[string]string{
		"query": "query", "query_base": "query", "query_diff": "query_diff", "value_diff": "value_diff",
		"value_diff_detail": "value_diff_detail", "profile_diff": "profile_diff", "row_count_diff": "row_count_diff",
		"top_k_diff": "top_k_diff", "histogram_diff": "histogram_diff", "change_analysis": "get_cll",
		"profile": "profile", "row_count": "row_count",
		// The peer's DuckDB-only inline profile, which Ripple does not have.
		"profile_distribution": "",
	}
}

func (s *Server) mcpOnlyOps() *ops.Registry {
	r := ops.NewRegistry()
	ops.Add(r, ops.Spec{
		Name:  "get_server_info",
		Title: "Server info",
		Description: "Server context: mode, adapter, support_tasks, single_env, base_status (are base artifacts usable), paths, load errors, tools. " +
			"Call it first when other tools fail.",
	}, func(ctx context.Context, _ *ops.Session, _ *ServerInfoInput) (*ServerInfo, error) {
		return s.info(ctx), nil
	})
	ops.Add(r, ops.Spec{
		Name:  "set_backend",
		Title: "Set backend",
		Description: "Point the server (mode local) at another project or artifact dirs; omitted fields keep their value, a failed switch " +
			"changes nothing. No cloud.",
	}, func(ctx context.Context, _ *ops.Session, in *SetBackendInput) (*SetBackendResult, error) {
		return s.setBackend(ctx, in)
	})
	addAppOps(r)
	return r
}

func (s *Server) info(ctx context.Context) *ServerInfo {
	paths := s.sess.Config().Paths
	info := &ServerInfo{
		Mode: "local", AdapterType: "dbt", ServerMode: string(s.mode), Toolsets: s.toolsets,
		ProjectDir: paths.ProjectDir, TargetPath: paths.TargetPath, TargetBasePath: paths.TargetBasePath,
		CurrentDir: absOr(paths.CurrentDir()), BaseDir: absOr(paths.BaseDir()),
		SupportTasks: map[string]bool{}, Tools: modelTools(s.toolNames()), Version: s.version, BaseStatus: "unknown",
	}
	hasWarehouse := s.sess.Config().OpenWarehouse != nil
	// A task is runnable when its operation is, as a tool or as a check
	// type (create_check/run_check take any operation of the registry,
	// whichever toolsets are served).
	for task, opName := range supportTasks() {
		op, ok := s.reg.Get(opName)
		info.SupportTasks[task] = ok && op.Name == opName && s.modeAllows(op) && (!op.Warehouse || hasWarehouse)
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
	} else {
		info.ArtifactsLoaded = true
		info.SingleEnv = p.SingleEnv
	}
	if info.SingleEnv {
		info.BaseStatus = "single_env"
		return info
	}
	var f dbt.Freshness
	var ferr error
	if p != nil && p.Base != nil {
		f, ferr = dbt.BaseFreshness(ctx, p.Base, paths, dbt.FreshnessOptions{})
	} else {
		f, ferr = dbt.CheckBaseFreshness(ctx, paths, dbt.FreshnessOptions{})
	}
	if ferr == nil {
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
