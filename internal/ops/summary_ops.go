package ops

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// SummaryResult is the Markdown PR comment.
type SummaryResult struct {
	Markdown  string             `json:"markdown" jsonschema:"the PR comment as Markdown, with a Mermaid lineage block"`
	DataSteps string             `json:"data_steps" jsonschema:"ok, partial (some warehouse steps failed; errors lists them) or failed (steps failed and nothing was measured, e.g. the warehouse could not be opened); the Markdown opens with the failures"`
	Errors    []impact.StepError `json:"errors" jsonschema:"the warehouse steps that failed, as impact_analysis reports them"`
	Warning   string             `json:"_warning,omitempty" jsonschema:"single-env notice"`
}

func addSummaryOps(r *Registry) {
	Add(r, Spec{Name: "summary", Title: "Pull-request summary", Warehouse: true,
		Description: "A Markdown comment for the pull request: artifact timestamps, the Mermaid lineage of impacted models annotated with row-count and schema changes, " +
			"the impact table (rows, schema, data impact, affected rows; unmeasurable values say why, e.g. N/A (table_not_found)) and the saved checks. " +
			"Takes the impact_analysis parameters: select limits which models are listed, never what counts as changed. " + SelectGrammar},
		func(ctx context.Context, s *Session, in *impact.Input) (*SummaryResult, error) {
			return Summary(ctx, s, *in)
		})
}

// SummaryMarkdown runs the triage and renders the PR comment with the checks
// of the state file, when one exists.
func SummaryMarkdown(ctx context.Context, s *Session, in impact.Input) (string, error) {
	r, err := Summary(ctx, s, in)
	if err != nil {
		return "", err
	}
	return r.Markdown, nil
}

// Summary is SummaryMarkdown with whether the data steps ran.
func Summary(ctx context.Context, s *Session, in impact.Input) (*SummaryResult, error) {
	deps, err := impactDeps(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := impact.Analyze(ctx, deps, in)
	if err != nil {
		return nil, err
	}
	var list []impact.SummaryCheck
	if _, err := os.Stat(s.Config().StatePath); !errors.Is(err, fs.ErrNotExist) {
		st, err := s.Checks(ctx)
		if err != nil {
			return nil, err
		}
		p, _ := s.Project(ctx)
		for _, c := range st.List(ArtifactsModTime(p)).Checks {
			list = append(list, summaryCheck(c))
		}
	}
	var warnings []string
	if c := s.openedWarehouse(); c != nil {
		warnings = warehouse.Warnings(c)
	}
	md := impact.Markdown(impact.SummaryInput{Comparison: deps.Comparison, Verdicts: deps.Verdicts, Impact: res, Checks: list, WarehouseWarnings: warnings})
	out := &SummaryResult{Markdown: md, DataSteps: res.DataSteps(), Errors: res.Errors}
	if deps.Comparison.Project.SingleEnv {
		out.Warning = dbt.SingleEnvWarning
	}
	return out, nil
}

func summaryCheck(c checks.CheckInfo) impact.SummaryCheck {
	// The summary words statuses in lower case ("failed").
	status := strings.ToLower(string(c.LastRunStatus))
	if status == "" {
		status = "never run"
	}
	return impact.SummaryCheck{Name: c.Name, Type: c.Type, Approved: c.IsChecked, Status: status, Mismatched: c.Mismatched, Outdated: c.IsOutdated}
}
