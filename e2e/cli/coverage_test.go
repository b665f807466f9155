package cli_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/ops"
)

// covered maps every operation of the registry to the test that runs it
// end to end. A new operation fails TestEveryOperationIsCovered until it
// gets an end-to-end test here.
var covered = map[string]string{
	"row_count_diff":         "TestRowCountDiff",
	"value_diff":             "TestValueDiffOrders",
	"value_diff_detail":      "TestValueDiffDetail",
	"query":                  "TestQuery",
	"query_diff":             "TestQueryDiff",
	"schema_diff":            "TestSchemaDiff",
	"lineage_diff":           "TestLineageDiff",
	"select_nodes":           "TestSelectNodes",
	"impact_analysis":        "TestImpactAnalysis",
	"render_lineage_mermaid": "TestRenderLineageMermaid",
	"get_model":              "TestGetModel",
	"list_checks":            "TestChecks",
	"create_check":           "TestChecks",
	"run_check":              "TestChecks",
	"approve_check":          "TestChecks",
	"delete_check":           "TestChecks",
	"reorder_check":          "TestChecks",
	"summary":                "TestSummary",
	"get_cll":                "TestGetCLL",
	"analyze_model":          "TestAnalyzeModel",
	"column_impact":          "TestColumnImpact",
	"sql_lineage":            "TestSQLLineage",
	"sql_diff":               "TestSQLDiff",
	"project_summary":        "TestListOpaqueAndProjectSummary",
	"list_opaque":            "TestListOpaqueAndProjectSummary",
	"search":                 "TestFindDataAndSearch",
	"find_data":              "TestFindDataAndSearch",
	"erd":                    "TestERD",
	"test_gaps":              "TestTestGaps",
	"state_policies":         "TestStatePolicies",
	"describe_entity":        "TestDescribeEntity",
	"plan_query":             "TestPlanQuery",
	"compare_observed":       "TestCompareObserved",
	"openlineage_export":     "TestOpenLineageExport",
	"get_node":               "TestGetNode",
	"lineage":                "TestLineage",
	"profile_diff":           "TestProfileDiff",
	"row_count":              "TestNoBaseIsNotSilent",
	"profile":                "TestNoBaseIsNotSilent",
	"top_k_diff":             "TestTopKDiff",
	"histogram_diff":         "TestHistogramDiff",
}

// hand-written commands (not operations) with their tests: demo
// (TestDemoIdempotent), run (TestRun), check-base (TestCheckBase),
// sql-lineage (TestSQLLineage), sql-diff (TestSQLDiff), version (TestVersion).

func TestEveryOperationIsCovered(t *testing.T) {
	t.Parallel()
	var missing []string
	for _, op := range ops.Default().Ops() {
		if _, ok := covered[op.Name]; !ok {
			missing = append(missing, op.Name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("operations without an end-to-end test in e2e/cli: %v", missing)
	}
}

func TestHelpListsEveryOperation(t *testing.T) {
	t.Parallel()
	r := execRipple(t, "--help")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	help := string(r.stdout)
	var absent []string
	for _, op := range ops.Default().Ops() {
		if !strings.Contains(help, "\n  "+op.CLIName()+" ") {
			absent = append(absent, op.CLIName())
		}
	}
	sort.Strings(absent)
	if len(absent) > 0 {
		t.Errorf("ripple --help does not list %v", absent)
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	for _, op := range ops.Default().Ops() {
		r := execRipple(t, op.CLIName(), "--help")
		if r.code != 0 || !strings.Contains(string(r.stdout), "ripple "+op.CLIName()) || len(r.stderr) != 0 {
			t.Errorf("ripple %s --help:\n%s", op.CLIName(), r)
		}
	}
}
