package dbt

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Paths says where a project's two builds live.
type Paths struct {
	ProjectDir     string // default "."
	TargetPath     string // current build, default "target"
	TargetBasePath string // base build, default "target-base"
}

// WithDefaults fills empty fields with dbt's defaults.
func (p Paths) WithDefaults() Paths {
	if p.ProjectDir == "" {
		p.ProjectDir = "."
	}
	if p.TargetPath == "" {
		p.TargetPath = "target"
	}
	if p.TargetBasePath == "" {
		p.TargetBasePath = "target-base"
	}
	return p
}

// CurrentDir is the absolute-or-relative directory of the current build.
func (p Paths) CurrentDir() string { return resolve(p.ProjectDir, p.TargetPath) }

// BaseDir is the directory of the base build.
func (p Paths) BaseDir() string { return resolve(p.ProjectDir, p.TargetBasePath) }

func resolve(project, target string) string {
	if filepath.IsAbs(target) {
		return target
	}
	return filepath.Join(project, target)
}

// Project is the pair of builds Ripple compares.
type Project struct {
	Paths   Paths
	Base    *Env
	Current *Env
	// SingleEnv is true when no base build exists: Base is then Current and
	// every comparison shows no change.
	SingleEnv bool
}

// SingleEnvWarning is attached to results that compare environments when
// there is no base build.
const SingleEnvWarning = "Base environment not configured — comparisons show no changes. Run `dbt docs generate --target-path target-base` to enable diffing."

// ErrNoBase is the error of a command that compares base with current run
// without base artifacts (and without single-environment mode asked for).
var ErrNoBase = errors.New("no base artifacts")

// NoBaseError says that the base build is missing, why that stops a
// comparison, and how to fix it: build the base, or ask for
// single-environment mode with flag (e.g. "--single-env").
func NoBaseError(p Paths, flag string) error {
	p = p.WithDefaults()
	return fmt.Errorf("%w: %s does not exist, so there is no base build to compare the current one with and the data could not be checked. "+
		"Build the base from the main branch (git switch main && dbt run --target prod && dbt docs generate --target prod --target-path %s), "+
		"or point --target-base-path at it; to review the current build alone, pass %s",
		ErrNoBase, filepath.Join(p.BaseDir(), ManifestFile), p.TargetBasePath, flag)
}

// LoadProject reads both builds. A missing current manifest is an error; a
// missing base directory or manifest puts the project in single-environment mode.
func LoadProject(ctx context.Context, p Paths) (*Project, error) {
	p = p.WithDefaults()
	var (
		wg              sync.WaitGroup
		cur, base       *Env
		curErr, baseErr error
		baseMissing     bool
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		cur, curErr = LoadEnv(ctx, p.CurrentDir(), "current", "dbt docs generate")
	}()
	go func() {
		defer wg.Done()
		if _, err := os.Stat(filepath.Join(p.BaseDir(), ManifestFile)); errors.Is(err, fs.ErrNotExist) {
			baseMissing = true
			return
		}
		base, baseErr = LoadEnv(ctx, p.BaseDir(), "base", "dbt docs generate --target-path "+p.TargetBasePath)
	}()
	wg.Wait()
	if curErr != nil {
		return nil, curErr
	}
	if baseErr != nil {
		return nil, baseErr
	}
	pr := &Project{Paths: p, Current: cur, Base: base}
	if baseMissing {
		pr.Base = cur
		pr.SingleEnv = true
	}
	return pr, nil
}

// ModelDatabase is the database the current build's models live in (the
// DuckDB catalog), so that a warehouse opened from a bare file path can
// resolve their three-part names; "" when unknown.
func (p *Project) ModelDatabase() string {
	if p == nil || p.Current == nil || p.Current.Manifest == nil {
		return ""
	}
	for _, n := range p.Current.Manifest.Nodes {
		if n.ResourceType == Model && n.Database != "" {
			return n.Database
		}
	}
	return ""
}
