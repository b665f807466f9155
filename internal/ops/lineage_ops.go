package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/selector"
)

// SelectNote ends the description of every select parameter.
const SelectNote = "SPACE = union (OR), COMMA = intersection (AND); name* = prefix."

// SelectGrammar is the selector grammar, documented once (select_nodes).
const SelectGrammar = "Grammar: space = union, comma = intersection, name* prefix, +x / x+ ancestors / descendants (2+x depth), @x; " +
	"tag:, path:, file:, fqn:, package:, config.<k>:<v>, resource_type:, source:, exposure:, metric:, test_type:, test_name:, " +
	"state:new|old|modified|unmodified, state:modified.body|configs|relation|persisted_descriptions|macros|contract."

// SelectInput is the common selection input.
type SelectInput struct {
	Select   string   `json:"select,omitempty" jsonschema:"dbt selector."`
	Exclude  string   `json:"exclude,omitempty" jsonschema:"dbt selector to exclude"`
	Packages []string `json:"packages,omitempty" jsonschema:"packages (default: root project; all if it has no models)"`
	ViewMode string   `json:"view_mode,omitempty" enum:"all,changed_models" jsonschema:"changed_models: only 1+state:modified+"`
	// AllowEmpty is allow_empty of every operation that selects nodes.
	AllowEmpty bool `json:"allow_empty,omitempty" jsonschema:"accept a select/exclude term naming nothing (default: error)"`
}

// SelectResult lists selected unique ids.
type SelectResult struct {
	Nodes   []string `json:"nodes" jsonschema:"unique ids, sorted (tests only if selected by type)"`
	Warning string   `json:"_warning,omitempty" jsonschema:"why the selection is empty although every term is valid (e.g. nothing changed)"`
}

// selectIDs runs the selector over the session's comparison.
func selectIDs(ctx context.Context, s *Session, in SelectInput) ([]string, *lineage.Comparison, error) {
	cmp, err := s.Comparison(ctx)
	if err != nil {
		return nil, nil, err
	}
	if in.ViewMode != "" && in.ViewMode != "all" && in.ViewMode != "changed_models" {
		return nil, nil, fmt.Errorf("view_mode must be 'all' or 'changed_models', not %q", in.ViewMode)
	}
	sel := selector.New(cmp.Graph, cmp.State, cmp.Project.Current.Manifest.Metadata.ProjectName)
	opts := selector.Options{Select: in.Select, Exclude: in.Exclude, Packages: in.Packages, ViewMode: in.ViewMode}
	ids, err := sel.Select(opts)
	if err != nil {
		return nil, nil, err
	}
	if !in.AllowEmpty {
		if err := sel.Check(opts); err != nil {
			return nil, nil, err
		}
	}
	return ids, cmp, nil
}

// emptyWarning explains an empty selection whose terms are all valid, so
// an empty result is not mistaken for a typo or for "nothing there".
func emptyWarning(in SelectInput, ids []string) string {
	if len(ids) > 0 || strings.TrimSpace(in.Select) == "" {
		return ""
	}
	return fmt.Sprintf("select %q matches no node in this comparison: every term names something in the project, but together (with exclude, packages and view_mode) they leave none, e.g. a state: term when nothing of that kind changed", in.Select)
}

// scopeWarning says when the package scope (packages, or the default one)
// hid changed nodes, so that "0 changed" is not read as "nothing changed".
func scopeWarning(cmp *lineage.Comparison, packages []string) string {
	sel := selector.New(cmp.Graph, cmp.State, cmp.Project.Current.Manifest.Metadata.ProjectName)
	hidden := sel.OutOfScopeChanges(packages)
	if len(hidden) == 0 {
		return ""
	}
	scope := packages
	if scope == nil {
		scope = sel.DefaultPackages()
	}
	return fmt.Sprintf("%d changed node(s) outside packages [%s] are not shown (first: %s); pass packages: [] for every package, or name theirs.",
		len(hidden), strings.Join(scope, ", "), hidden[0])
}

// joinWarnings joins non-empty warnings.
func joinWarnings(ws ...string) string {
	var out []string
	for _, w := range ws {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

func addLineageOps(r *Registry) {
	Add(r, Spec{
		Name: "lineage_diff", Memoize: true,
		Title: "Lineage diff",
		Description: "Lineage diff of base and current: nodes and edges DataFrames. impacted is the DAG answer: modified or downstream through ref " +
			"(false even when sharing sources). Report verdict: impact_analysis's answer (ruled_out: by column lineage). Mermaid graph LR fill/stroke: added #d4edda/#28a745, removed #f8d7da/#dc3545, " +
			"modified #fff3cd/#ffc107, impacted #fff/#ffc107, others #fff/#d3d3d3.",
		DiffTool: true,
	}, func(ctx context.Context, s *Session, in *lineage.DiffInput) (*lineage.DiffResult, error) {
		mode := in.ViewMode
		if mode == "" {
			mode = "changed_models"
		}
		si := SelectInput{Select: in.Select, Exclude: in.Exclude, Packages: in.Packages, ViewMode: mode, AllowEmpty: in.AllowEmpty}
		ids, cmp, err := selectIDs(ctx, s, si)
		if err != nil {
			return nil, err
		}
		v, err := Verdicts(ctx, s)
		if err != nil {
			return nil, err
		}
		res := cmp.Diff(ids, mode, v.Verdict)
		res.Warning = joinWarnings(res.Warning, emptyWarning(si, ids), scopeWarning(cmp, in.Packages))
		return res, nil
	})

	Add(r, Spec{
		Name: "select_nodes", Memoize: true,
		Title:       "Select nodes",
		Description: "Resolve a dbt selection over both builds (removed nodes included) to sorted unique ids. " + SelectGrammar,
	}, func(ctx context.Context, s *Session, in *SelectInput) (*SelectResult, error) {
		ids, _, err := selectIDs(ctx, s, *in)
		if err != nil {
			return nil, err
		}
		if ids == nil {
			ids = []string{}
		}
		return &SelectResult{Nodes: ids, Warning: emptyWarning(*in, ids)}, nil
	})
}
