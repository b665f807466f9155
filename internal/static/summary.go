package static

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ripple-data/ripple/internal/dbt"
)

// SummaryInput takes no parameters; it exists so every operation has a typed input.
type SummaryInput struct{}

// ArtifactInfo describes one artifact file.
type ArtifactInfo struct {
	Path    string `json:"path" jsonschema:"file path"`
	Present bool   `json:"present" jsonschema:"the file exists"`
	// GeneratedAt is metadata.generated_at as dbt wrote it.
	GeneratedAt string `json:"generated_at,omitempty" jsonschema:"metadata.generated_at"`
	// ModifiedAt is the file's modification time (RFC 3339).
	ModifiedAt string `json:"modified_at,omitempty" jsonschema:"file modification time (RFC 3339)"`
	// AgeSeconds is how long ago the file was modified.
	AgeSeconds int64 `json:"age_seconds,omitempty" jsonschema:"seconds since generated"`
}

// LineageCoverage says how much of the project has column lineage.
type LineageCoverage struct {
	Available bool `json:"available" jsonschema:"column lineage could be computed"`
	// Models is the number of enabled models; Analyzed those with column lineage.
	Models   int     `json:"models" jsonschema:"models with SQL"`
	Analyzed int     `json:"analyzed" jsonschema:"models with column lineage"`
	Percent  float64 `json:"percent" jsonschema:"analyzed / models, in percent"`
	Opaque   int     `json:"opaque" jsonschema:"opaque models"`
}

// SummaryResult describes the project and its artifacts.
type SummaryResult struct {
	ProjectName    string                  `json:"project_name" jsonschema:"dbt project name"`
	DbtVersion     string                  `json:"dbt_version" jsonschema:"dbt version"`
	AdapterType    string                  `json:"adapter_type" jsonschema:"warehouse adapter"`
	ManifestSchema int                     `json:"manifest_schema_version" jsonschema:"manifest schema version (v7 to v12)"`
	Artifacts      map[string]ArtifactInfo `json:"artifacts" jsonschema:"artifact files by name"`
	CatalogPresent bool                    `json:"catalog_present" jsonschema:"catalog.json exists"`
	// Counts is the number of enabled entries per resource type.
	Counts       map[string]int  `json:"counts" jsonschema:"nodes per resource type"`
	PythonModels int             `json:"python_models" jsonschema:"Python models"`
	Disabled     int             `json:"disabled" jsonschema:"disabled nodes"`
	Lineage      LineageCoverage `json:"lineage" jsonschema:"column-lineage coverage"`
	// UsesState is true when any model or source configures dbt freshness
	// (build_after, warn_after/error_after) for state-aware orchestration.
	UsesState         bool `json:"uses_state" jsonschema:"freshness or build_after configs are used"`
	StatePolicyModels int  `json:"state_policy_models" jsonschema:"nodes with such configs"`
}

// Summary returns versions, artifact ages, counts, lineage coverage and
// whether the project uses dbt State freshness configs.
func Summary(ctx context.Context, p *Project, _ SummaryInput) (*SummaryResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := p.env.Manifest
	res := &SummaryResult{
		ProjectName:    m.Metadata.ProjectName,
		DbtVersion:     m.Metadata.DbtVersion,
		AdapterType:    m.Metadata.AdapterType,
		ManifestSchema: m.SchemaVersion,
		CatalogPresent: p.env.Catalog != nil,
		Counts:         map[string]int{},
		Artifacts:      map[string]ArtifactInfo{},
	}
	now := p.now()
	files := []struct {
		name string
		meta *dbt.Metadata
	}{{dbt.ManifestFile, &m.Metadata}, {dbt.CatalogFile, nil}, {dbt.RunResultsFile, nil}}
	if p.env.Catalog != nil {
		files[1].meta = &p.env.Catalog.Metadata
	}
	if p.env.RunResults != nil {
		files[2].meta = &p.env.RunResults.Metadata
	}
	for _, f := range files {
		path := filepath.Join(p.env.Dir, f.name)
		info := ArtifactInfo{Path: path}
		if f.meta != nil {
			info.GeneratedAt = f.meta.GeneratedAt
		}
		st, err := os.Stat(path)
		switch {
		case err == nil:
			info.Present = true
			info.ModifiedAt = st.ModTime().UTC().Format(time.RFC3339)
			info.AgeSeconds = int64(now.Sub(st.ModTime()).Seconds())
		case errors.Is(err, fs.ErrNotExist):
			info.Present = f.meta != nil
		default:
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		res.Artifacts[f.name] = info
	}
	p.misc()
	for k, v := range p.counts {
		res.Counts[k] = v
	}
	models := p.counts[dbt.Model]
	res.PythonModels = p.python
	for _, list := range m.Disabled {
		res.Disabled += len(list)
	}
	res.Lineage.Models = models
	if p.lin != nil {
		res.Lineage.Available = true
		res.Lineage.Analyzed = p.analyzed
		res.Lineage.Opaque = p.opaque
		if models > 0 {
			res.Lineage.Percent = percent1(res.Lineage.Analyzed, models)
		}
	}
	for _, e := range p.entities {
		if _, ok := p.statePolicyOf(e); ok {
			res.StatePolicyModels++
		}
	}
	res.UsesState = res.StatePolicyModels > 0
	return res, nil
}

// StatePoliciesInput filters the policies.
type StatePoliciesInput struct {
	Model string `json:"model,omitempty" jsonschema:"only this model or source (name or unique id); empty means all"`
}

// FreshnessRule is a count and period such as 4 hours.
type FreshnessRule struct {
	Count  *int   `json:"count,omitempty" jsonschema:"how many periods"`
	Period string `json:"period,omitempty" jsonschema:"minute, hour or day"`
}

// StatePolicy is the freshness config of one model or source.
type StatePolicy struct {
	Name         string `json:"name" jsonschema:"node name"`
	UniqueID     string `json:"unique_id" jsonschema:"unique id"`
	ResourceType string `json:"resource_type" jsonschema:"model or source"`
	// BuildAfter is config.freshness.build_after (models): rebuild no more
	// often than this, and UpdatesOn says whether any or all upstreams must
	// have new data.
	BuildAfter *FreshnessRule `json:"build_after,omitempty" jsonschema:"build_after rule"`
	UpdatesOn  string         `json:"updates_on,omitempty" jsonschema:"any or all"`
	// WarnAfter and ErrorAfter are source freshness thresholds.
	WarnAfter  *FreshnessRule `json:"warn_after,omitempty" jsonschema:"freshness warn_after"`
	ErrorAfter *FreshnessRule `json:"error_after,omitempty" jsonschema:"freshness error_after"`
	Filter     string         `json:"filter,omitempty" jsonschema:"freshness filter"`
	// Other holds further freshness keys (lag_tolerance, require_fresh_data_from...) as written.
	Other map[string]json.RawMessage `json:"other,omitempty" jsonschema:"other freshness settings, as written"`
}

// StatePoliciesResult lists freshness policies where they are configured.
type StatePoliciesResult struct {
	Policies []StatePolicy `json:"policies" jsonschema:"nodes with freshness or build_after configs"`
	Note     string        `json:"note,omitempty" jsonschema:"when there are none, why"`
}

// StatePolicies returns the dbt freshness / build_after configs per model
// and source where they are used.
func StatePolicies(ctx context.Context, p *Project, in StatePoliciesInput) (*StatePoliciesResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &StatePoliciesResult{Policies: []StatePolicy{}}
	if in.Model != "" {
		e, err := p.resolve(in.Model)
		if err != nil {
			return nil, err
		}
		if sp, ok := p.statePolicyOf(e); ok {
			res.Policies = append(res.Policies, sp)
		} else {
			res.Note = e.name + " has no freshness config"
		}
		return res, nil
	}
	for _, e := range p.entities {
		if sp, ok := p.statePolicyOf(e); ok {
			res.Policies = append(res.Policies, sp)
		}
	}
	sort.Slice(res.Policies, func(i, j int) bool { return res.Policies[i].UniqueID < res.Policies[j].UniqueID })
	if len(res.Policies) == 0 {
		res.Note = "no model or source configures freshness (build_after, warn_after or error_after)"
	}
	return res, nil
}

type rawRule struct {
	Count  *int    `json:"count"`
	Period *string `json:"period"`
}

func (r *rawRule) rule() *FreshnessRule {
	if r == nil || (r.Count == nil && (r.Period == nil || *r.Period == "")) {
		return nil
	}
	out := &FreshnessRule{Count: r.Count}
	if r.Period != nil {
		out.Period = *r.Period
	}
	return out
}

// statePolicy decodes config.freshness; ok is false when nothing is set.
func statePolicy(e *entity) (StatePolicy, bool) {
	raw := e.node.Config.Freshness
	if len(raw) == 0 || string(raw) == "null" {
		return StatePolicy{}, false
	}
	var all map[string]json.RawMessage
	if json.Unmarshal(raw, &all) != nil || len(all) == 0 {
		return StatePolicy{}, false
	}
	sp := StatePolicy{Name: e.name, UniqueID: e.id, ResourceType: e.kind}
	for k, v := range all {
		if string(v) == "null" {
			continue
		}
		switch k {
		case "build_after":
			var ba struct {
				rawRule
				UpdatesOn *string `json:"updates_on"`
			}
			if json.Unmarshal(v, &ba) == nil {
				sp.BuildAfter = ba.rule()
				if ba.UpdatesOn != nil {
					sp.UpdatesOn = *ba.UpdatesOn
				}
			}
		case "warn_after", "error_after":
			var r rawRule
			if json.Unmarshal(v, &r) == nil {
				if k == "warn_after" {
					sp.WarnAfter = r.rule()
				} else {
					sp.ErrorAfter = r.rule()
				}
			}
		case "filter":
			_ = json.Unmarshal(v, &sp.Filter)
		default:
			if sp.Other == nil {
				sp.Other = map[string]json.RawMessage{}
			}
			sp.Other[k] = v
		}
	}
	if sp.BuildAfter == nil && sp.WarnAfter == nil && sp.ErrorAfter == nil && len(sp.Other) == 0 {
		return StatePolicy{}, false
	}
	return sp, true
}

// percent1 is part/whole in percent rounded to one decimal (8 of 9 is 88.9,
// not the truncated 88.8), never 100 while part < whole nor 0 while part > 0:
// a rounded figure must not claim every model or none.
func percent1(part, whole int) float64 {
	p := math.Round(1000*float64(part)/float64(whole)) / 10
	switch {
	case part < whole && p >= 100:
		return 99.9
	case part > 0 && p <= 0:
		return 0.1
	}
	return p
}
