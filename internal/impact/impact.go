// Package impact is the one-call triage of a pull request: it classifies
// every model (modified / downstream / not impacted), counts rows, compares
// schemas, finds and verifies a key per model, verifies data with value
// diffs, and tells the caller the one next step worth taking per model.
package impact

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/lineage"
)

// DefaultSelect is what counts as changed: changes that can alter data
// (config-only changes are left out), with everything downstream of them.
const DefaultSelect = "state:modified.body+ state:modified.macros+ state:modified.contract+"

// Defaults of the cost and concurrency knobs.
const (
	// DefaultThreads is how many models are checked in the warehouse at once.
	DefaultThreads = 4
	// DefaultMaxValueDiffRows is the largest view (rows of its larger side)
	// that is value-diffed: a view runs its whole query for every scan.
	DefaultMaxValueDiffRows = 1_000_000
	maxThreads              = 64
)

// Detail levels of the response.
const (
	DetailCompact = "compact"
	DetailFull    = "full"
)

// Input configures the analysis.
type Input struct {
	Select                  string `json:"select,omitempty" jsonschema:"dbt selector of the models to report (default: every model). It limits which models are listed, never what counts as changed: changes always come from every modified node, and a model outside the selection is not listed at all. A term that matches no node is an error naming the closest node names."`
	SkipValueDiff           bool   `json:"skip_value_diff,omitempty" jsonschema:"run no value diff; row counts and key checks still run, and every model that is not added or removed stays potential"`
	SkipDownstreamValueDiff bool   `json:"skip_downstream_value_diff,omitempty" jsonschema:"value-diff only modified models, not downstream ones"`
	UseColumnLineage        *bool  `json:"use_column_lineage,omitempty" jsonschema:"rule out downstream models that read none of the changed columns (default true)"`
	MaxValueDiffRows        int64  `json:"max_value_diff_rows,omitempty" jsonschema:"views whose larger side has more rows are not value-diffed (a view re-runs its query on every scan); 0 = default 1000000, -1 = no limit. Tables are always value-diffed when they have a verified key."`
	Threads                 int    `json:"threads,omitempty" jsonschema:"models checked in the warehouse at once (default 4, at most 64)"`
	Detail                  string `json:"detail,omitempty" jsonschema:"compact (default): full entries for confirmed and potential models, one short row for models with data_impact none, not-impacted models by name only; full: every field of every model and the column-lineage evidence of each ruled-out model"`
	AllowEmpty              bool   `json:"allow_empty,omitempty" jsonschema:"accept a select/exclude term naming nothing in the project (default: an error with the closest names)"`
}

// Data impact verdicts.
const (
	Confirmed = "confirmed" // the data changed: a value diff found changed rows, or the model was added or removed
	None      = "none"      // a value diff found no changed rows
	Potential = "potential" // no definitive answer; next_action says how to get one
)

// Key sources, in the order they are tried.
const (
	KeyFromConstraint = "constraint" // primary_key constraint or incremental/snapshot unique_key
	KeyFromTest       = "test"       // unique or unique_combination_of_columns test
	KeyFromGrain      = "grain"      // GROUP BY / DISTINCT / QUALIFY row_number() of the model's SQL
	KeyFromLineage    = "lineage"    // passthrough or rename of an upstream model's key
	KeyFromName       = "name"       // a column named <model>_id or id
)

// Verdict bases.
const (
	BasisValueDiff    = "value_diff"
	BasisAddedModel   = "added_model"
	BasisRemovedModel = "removed_model"
)

// RowCount is a model's row counts with the change.
type RowCount struct {
	Base     *int64   `json:"base" jsonschema:"rows in the base build (null when not counted: see base_status)"`
	Current  *int64   `json:"current" jsonschema:"rows in the current build (null when not counted: see current_status)"`
	Delta    *int64   `json:"delta" jsonschema:"current minus base (null unless both are counted)"`
	DeltaPct *float64 `json:"delta_pct" jsonschema:"delta as a percentage of base, one decimal (null when base is 0 or not counted)"`
	// Status explains a missing count (table_not_found, permission_denied...).
	BaseStatus    string `json:"base_status,omitempty" jsonschema:"why the base count is missing: not_in_manifest, table_not_found, permission_denied, unsupported_resource_type or unsupported_materialization"`
	CurrentStatus string `json:"current_status,omitempty" jsonschema:"why the current count is missing (same values as base_status)"`
}

// SchemaChange is one changed column.
type SchemaChange struct {
	Column       string `json:"column" jsonschema:"column name"`
	ChangeStatus string `json:"change_status" jsonschema:"added, removed or modified (type changed)"`
	BaseType     string `json:"base_type,omitempty" jsonschema:"type in the base build"`
	CurrentType  string `json:"current_type,omitempty" jsonschema:"type in the current build"`
}

// ColumnValueDiff is a column's share of a value diff.
type ColumnValueDiff struct {
	AffectedRowCount int64    `json:"affected_row_count" jsonschema:"rows present in both builds whose value of this column differs"`
	BaseMean         *float64 `json:"base_mean" jsonschema:"mean in base over all its rows (numeric columns only, else null)"`
	CurrentMean      *float64 `json:"current_mean" jsonschema:"mean in current over all its rows (numeric columns only, else null)"`
}

// ValueDiff is the key-joined comparison of a model's rows.
type ValueDiff struct {
	PrimaryKey       []string                   `json:"primary_key" jsonschema:"the key the rows were joined on"`
	AffectedRowCount int64                      `json:"affected_row_count" jsonschema:"rows_added + rows_removed + rows_changed"`
	RowsAdded        int64                      `json:"rows_added" jsonschema:"keys only in current"`
	RowsRemoved      int64                      `json:"rows_removed" jsonschema:"keys only in base"`
	RowsChanged      int64                      `json:"rows_changed" jsonschema:"keys in both builds with any compared column different"`
	Columns          map[string]ColumnValueDiff `json:"columns,omitempty" jsonschema:"per compared non-key column, its changed rows and means"`
}

// NextAction is the one follow-up worth making for a model.
type NextAction struct {
	Tool     string   `json:"tool" jsonschema:"the tool to call: query_diff, profile_diff or query"`
	Columns  []string `json:"columns" jsonschema:"the columns the follow-up is about (null: the whole model)"`
	Reason   string   `json:"reason" jsonschema:"why this step, and why no definitive verdict yet"`
	Priority string   `json:"priority" jsonschema:"high (modified models), medium (downstream tables) or low (downstream views)"`
	// Query is kept for callers of earlier versions.
	Query string `json:"query,omitempty" jsonschema:"Deprecated: use arguments.sql_template. The SQL of a query or query_diff step."`
	// Arguments are ready arguments for the tool.
	Arguments map[string]any `json:"arguments,omitempty" jsonschema:"ready arguments for the tool: sql_template and primary_keys for query_diff, model and columns for profile_diff"`
}

// RejectedKey is a candidate key that failed verification.
type RejectedKey struct {
	Columns []string `json:"columns" jsonschema:"the candidate's columns"`
	Source  string   `json:"source" jsonschema:"where the candidate came from: constraint, test, grain, lineage or name"`
	Reason  string   `json:"reason" jsonschema:"what the verification found (e.g. duplicate or NULL key values, with counts)"`
}

// Model is one impacted model's verdict.
type Model struct {
	Name           string   `json:"name" jsonschema:"model name"`
	UniqueID       string   `json:"unique_id,omitempty" jsonschema:"dbt unique id"`
	ResourceType   string   `json:"resource_type,omitempty" jsonschema:"model, seed or snapshot"`
	Materialized   string   `json:"materialized" jsonschema:"config.materialized (table, view, incremental, ...)"`
	Classification string   `json:"classification,omitempty" jsonschema:"modified (the model itself changed) or downstream (impacted through an upstream change)"`
	ChangeStatus   *string  `json:"change_status" jsonschema:"added, removed or modified; null for downstream models"`
	Modifications  []string `json:"modifications,omitempty" jsonschema:"the dbt state:modified sub-selectors the model matches (body, configs, relation, persisted_descriptions, macros, contract)"`
	// ChangeCategory comes from column lineage: breaking, partial_breaking, non_breaking or unknown.
	ChangeCategory     string   `json:"change_category,omitempty" jsonschema:"column-lineage category of a modified model: breaking, partial_breaking, non_breaking or unknown"`
	CodeChangedColumns []string `json:"code_changed_columns,omitempty" jsonschema:"columns the code change touches by column lineage: for a modified model the columns it computes differently (or adds), for a downstream model its columns reached by a changed upstream column"`
	RowSetChanged      bool     `json:"row_set_changed,omitempty" jsonschema:"the change alters which rows exist (WHERE, JOIN, GROUP BY, DISTINCT), so every column may change"`
	// ChangedColumns is kept for callers of earlier versions.
	ChangedColumns      []string       `json:"changed_columns,omitempty" jsonschema:"Deprecated: use code_changed_columns."`
	ValueChangedColumns []string       `json:"value_changed_columns,omitempty" jsonschema:"columns whose values the value diff found changed (null when no value diff ran)"`
	ImpactedVia         []string       `json:"impacted_via,omitempty" jsonschema:"every changed upstream column (model.column) that reaches this model by column lineage; column_impact on that column lists this model"`
	PrimaryKey          []string       `json:"primary_key,omitempty" jsonschema:"the key used to compare rows, null when none was found or verified"`
	KeySource           string         `json:"key_source,omitempty" jsonschema:"where the key comes from: constraint (primary_key constraint or unique_key config), test (unique / unique_combination_of_columns), grain (GROUP BY, DISTINCT or QUALIFY row_number() = 1 of the SQL), lineage (passthrough or rename of an upstream key) or name (<model>_id, id)"`
	KeyVerified         bool           `json:"key_verified,omitempty" jsonschema:"true when the key is proven unique and not NULL: by a passing dbt test, or by one aggregate per side in the warehouse"`
	KeyEvidence         string         `json:"key_evidence,omitempty" jsonschema:"the test, constraint, clause or column the key comes from, and how it was verified"`
	RejectedKeys        []RejectedKey  `json:"rejected_keys,omitempty" jsonschema:"candidate keys that failed verification, with what was found"`
	RowCount            *RowCount      `json:"row_count,omitempty" jsonschema:"row counts of both builds (views included); null when not counted"`
	SchemaChanges       []SchemaChange `json:"schema_changes,omitempty" jsonschema:"changed columns from the catalogs: [] = compared and unchanged, null = could not be compared (missing catalog columns); added/removed models list all their columns"`
	ValueDiff           *ValueDiff     `json:"value_diff,omitempty" jsonschema:"the key-joined comparison of both builds; null when none ran (see value_diff_skipped)"`
	ValueDiffSkipped    string         `json:"value_diff_skipped,omitempty" jsonschema:"why no value diff ran (no verified key, view over max_value_diff_rows, skipped by a flag, failed, added/removed model...)"`
	AffectedRowCount    *int64         `json:"affected_row_count" jsonschema:"rows that differ: the value diff's affected_row_count, or every row of an added (current) or removed (base) model; null when potential"`
	VerdictBasis        string         `json:"verdict_basis,omitempty" jsonschema:"what the verdict rests on: value_diff, added_model (every current row is new) or removed_model (every base row is gone); empty when potential"`
	DataImpact          string         `json:"data_impact" jsonschema:"confirmed (data changed: report it), none (verified unchanged: report it), potential (unverified: follow next_action)"`
	NextAction          *NextAction    `json:"next_action,omitempty" jsonschema:"the one follow-up worth making; null when the verdict needs none"`
	Warning             string         `json:"warning,omitempty" jsonschema:"a problem with this model's comparison, e.g. base and current being the same relation"`

	// compact marks a row that marshals in its short form.
	compact bool
}

// NotImpacted is a downstream model column lineage rules out.
type NotImpacted struct {
	Name           string   `json:"name" jsonschema:"model name"`
	UniqueID       string   `json:"unique_id" jsonschema:"dbt unique id"`
	Reason         string   `json:"reason" jsonschema:"why it is not impacted"`
	Reads          []string `json:"reads_columns" jsonschema:"the columns (model.column) it reads from its upstream models that are modified or downstream of a change"`
	CheckedAgainst []string `json:"checked_against" jsonschema:"the changed columns (model.column) of its modified upstream models, none of which reaches it"`
}

// StepError is a step that failed without failing the analysis.
type StepError struct {
	Step    string `json:"step" jsonschema:"row_count_diff, schema_diff or value_diff"`
	Model   string `json:"model,omitempty" jsonschema:"the model the step was for, when it was for one"`
	Message string `json:"message" jsonschema:"what went wrong"`
}

// SuggestedCheck is a ready create_check call.
type SuggestedCheck struct {
	Type        string         `json:"type" jsonschema:"check type (row_count_diff, value_diff, schema_diff)"`
	Name        string         `json:"name" jsonschema:"check name"`
	Description string         `json:"description" jsonschema:"what the check records"`
	Params      map[string]any `json:"params" jsonschema:"ready params for create_check"`
}

// Result is the triage of the whole change.
type Result struct {
	Guidance             string `json:"_guidance" jsonschema:"how to read this result"`
	ClassificationSource string `json:"classification_source" jsonschema:"column_lineage (downstream models ruled out by column lineage) or lineage_dag (model-level lineage only)"`
	SingleEnv            bool   `json:"single_env" jsonschema:"true when there is no base build (nothing can differ)"`
	Warning              string `json:"_warning,omitempty" jsonschema:"a warning that affects the whole result (single environment; base and current being the same relations)"`
	Detail               string `json:"detail" jsonschema:"compact or full: how much of each model this response carries (see the detail parameter)"`
	// MaxAffectedRowCount is the largest affected_row_count of one model (not a total).
	MaxAffectedRowCount             int64               `json:"max_affected_row_count" jsonschema:"the largest affected_row_count of one model (not a total)"`
	ModifiedCount                   int                 `json:"modified_count" jsonschema:"reported models that are modified, added or removed"`
	DownstreamCount                 int                 `json:"downstream_count" jsonschema:"reported models downstream of a data-affecting change, as dbt's state:modified+ counts them: those column lineage rules out included"`
	ConfirmedImpactedModels         []*Model            `json:"confirmed_impacted_models" jsonschema:"every reported model that is modified or impacted (modified first, then downstream, by name); each has exactly one data_impact"`
	ConfirmedNotImpactedModels      []string            `json:"confirmed_not_impacted_models" jsonschema:"names of the reported models that no data-affecting change reaches (those ruled out by column lineage included); they need no review"`
	NotImpactedByColumnLineage      []NotImpacted       `json:"not_impacted_by_column_lineage,omitempty" jsonschema:"the evidence for the models column lineage rules out (their names are also in confirmed_not_impacted_models); absent in compact detail"`
	NotImpactedByColumnLineageCount int                 `json:"not_impacted_by_column_lineage_count" jsonschema:"how many reported models column lineage rules out"`
	SchemaCoverage                  diff.SchemaCoverage `json:"schema_coverage" jsonschema:"which models' schemas were compared: complete, partial (unchecked_nodes lists unique ids) or unknown"`
	SuggestedChecks                 []SuggestedCheck    `json:"suggested_checks" jsonschema:"ready create_check arguments worth saving for CI"`
	Errors                          []StepError         `json:"errors" jsonschema:"steps that failed; the other steps still ran"`
}

// Deps are the collaborators of an analysis.
type Deps struct {
	Comparison *lineage.Comparison
	// Select resolves a selector to unique ids (default packages).
	Select func(selectExpr string) ([]string, error)
	// Diff runs the warehouse steps; its Conn may be nil when no warehouse
	// is configured. Analyze answers column metadata from the catalogs.
	Diff diff.Env
	// Lineage is the column lineage of both builds; nil disables pruning.
	Lineage *Lineage
	// WarehouseErr is why no warehouse connection could be opened, if so;
	// the data steps report it instead of running.
	WarehouseErr error
	// SchemaDiff compares catalogs; nil means diff.SchemaDiff.
	SchemaDiff func(ctx context.Context, env diff.Env, in diff.SchemaDiffInput) (*diff.SchemaDiffResult, error)
	// Keys caches key checks per relation across calls; nil: per call.
	Keys *KeyCache
	// Progress receives one report per model checked in the warehouse.
	Progress func(done, total int, message string)
}

// Lineage is the column lineage of both builds.
type Lineage struct {
	Base, Current *cll.ProjectLineage
}

var tracked = map[string]bool{dbt.Model: true, dbt.Snapshot: true, dbt.Seed: true}

// Analyze runs the triage. Each step is resilient: a failure adds an entry
// to Errors and the other steps go on.
func Analyze(ctx context.Context, d Deps, in Input) (*Result, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	cmp := d.Comparison
	res := &Result{
		Guidance: Guidance, ClassificationSource: "lineage_dag", SingleEnv: cmp.Project.SingleEnv, Detail: in.Detail,
		ConfirmedImpactedModels: []*Model{}, ConfirmedNotImpactedModels: []string{}, NotImpactedByColumnLineage: []NotImpacted{},
		SuggestedChecks: []SuggestedCheck{}, Errors: []StepError{},
	}
	if res.Detail == "" {
		res.Detail = DetailCompact
	}
	if cmp.Project.SingleEnv {
		res.Warning = dbt.SingleEnvWarning
	}
	a, err := newAnalysis(d, in, res)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Select) != "" && len(a.scope) == 0 {
		res.Warning = strings.TrimSpace(res.Warning + " " + fmt.Sprintf("select %q matches no node in this comparison, so no model is listed: every term names something in the project, but together they leave none, e.g. a state: term when nothing of that kind changed.", in.Select))
	}
	a.classify(ctx)
	schemaChanges(ctx, d, a.models, res)
	a.checkData(ctx)
	for _, m := range a.models {
		m.NextAction = nextAction(a, m)
		if m.AffectedRowCount != nil && *m.AffectedRowCount > res.MaxAffectedRowCount {
			res.MaxAffectedRowCount = *m.AffectedRowCount
		}
		m.compact = res.Detail == DetailCompact && m.DataImpact == None
	}
	res.ConfirmedImpactedModels = a.models
	res.SuggestedChecks = suggestedChecks(a.models)
	sort.SliceStable(res.Errors, func(i, j int) bool {
		if res.Errors[i].Model != res.Errors[j].Model {
			return res.Errors[i].Model < res.Errors[j].Model
		}
		return res.Errors[i].Step < res.Errors[j].Step
	})
	if same := a.sameRelationModels(); len(same) > 0 {
		names := same
		if len(names) > 5 {
			names = append(names[:5:5], "…")
		}
		w := fmt.Sprintf("Base and current are the same table for %d model(s) (%s): comparing them cannot show a change, so their data_impact is potential, not none. To compare, %s.",
			len(same), strings.Join(names, ", "), diff.RebuildBaseHint)
		res.Warning = strings.TrimSpace(res.Warning + " " + w)
	}
	return res, ctx.Err()
}

func (in *Input) validate() error {
	switch in.Detail {
	case "", DetailCompact, DetailFull:
	default:
		return fmt.Errorf("detail must be %q or %q, not %q", DetailCompact, DetailFull, in.Detail)
	}
	if in.Threads < 0 || in.Threads > maxThreads {
		return fmt.Errorf("threads must be between 1 and %d, not %d", maxThreads, in.Threads)
	}
	if in.MaxValueDiffRows < -1 {
		return fmt.Errorf("max_value_diff_rows must be a row count, 0 (default %d) or -1 (no limit), not %d", DefaultMaxValueDiffRows, in.MaxValueDiffRows)
	}
	return nil
}

func (in Input) threads() int {
	if in.Threads <= 0 {
		return DefaultThreads
	}
	return in.Threads
}

func (in Input) maxViewRows() int64 {
	if in.MaxValueDiffRows == 0 {
		return DefaultMaxValueDiffRows
	}
	return in.MaxValueDiffRows
}

func schemaChanges(ctx context.Context, d Deps, models []*Model, res *Result) {
	res.SchemaCoverage = diff.SchemaCoverage{Status: "complete", UncheckedNodes: []string{}}
	var both []string
	for _, m := range models {
		if isAdded(m) || isRemoved(m) {
			oneSided(d, m)
			continue
		}
		both = append(both, m.UniqueID)
	}
	if len(both) == 0 {
		return
	}
	schemaDiff := d.SchemaDiff
	if schemaDiff == nil {
		schemaDiff = diff.SchemaDiff
	}
	sd, err := schemaDiff(ctx, d.Diff, diff.SchemaDiffInput{NodeIDs: both, Limit: 100000})
	if err != nil {
		res.Errors = append(res.Errors, StepError{Step: "schema_diff", Message: err.Error()})
		res.SchemaCoverage.Status = "unknown"
		return
	}
	res.SchemaCoverage = sd.Coverage
	unchecked := map[string]bool{}
	for _, id := range sd.Coverage.UncheckedNodes {
		unchecked[id] = true
	}
	changes := map[string][]SchemaChange{}
	idx := map[string]int{}
	for i, c := range sd.Changes.Columns {
		idx[c.Key] = i
	}
	for _, row := range sd.Changes.Data {
		id, _ := row[idx["node_id"]].(string)
		sc := SchemaChange{}
		sc.Column, _ = row[idx["column"]].(string)
		sc.ChangeStatus, _ = row[idx["change_status"]].(string)
		if i, ok := idx["base_type"]; ok {
			sc.BaseType, _ = row[i].(string)
		}
		if i, ok := idx["current_type"]; ok {
			sc.CurrentType, _ = row[i].(string)
		}
		changes[id] = append(changes[id], sc)
	}
	for _, m := range models {
		if isAdded(m) || isRemoved(m) {
			continue
		}
		if unchecked[m.UniqueID] {
			m.SchemaChanges = nil
			continue
		}
		m.SchemaChanges = changes[m.UniqueID]
		if m.SchemaChanges == nil {
			m.SchemaChanges = []SchemaChange{}
		}
	}
}

// oneSided lists every column of an added or removed model as added/removed.
func oneSided(d Deps, m *Model) {
	env, status := d.Comparison.Project.Current, "added"
	if isRemoved(m) {
		env, status = d.Comparison.Project.Base, "removed"
	}
	cols := env.Columns(m.UniqueID)
	if len(cols) == 0 {
		m.SchemaChanges = nil
		return
	}
	m.SchemaChanges = []SchemaChange{}
	for _, c := range cols {
		sc := SchemaChange{Column: c.Name, ChangeStatus: status}
		if status == "added" {
			sc.CurrentType = c.Type
		} else {
			sc.BaseType = c.Type
		}
		m.SchemaChanges = append(m.SchemaChanges, sc)
	}
}

func isAdded(m *Model) bool   { return m.ChangeStatus != nil && *m.ChangeStatus == "added" }
func isRemoved(m *Model) bool { return m.ChangeStatus != nil && *m.ChangeStatus == "removed" }

func materialization(m *Model) string {
	if m.ResourceType == dbt.Snapshot {
		return "snapshot"
	}
	if m.ResourceType == dbt.Seed {
		return "seed"
	}
	return m.Materialized
}

// refName is how a model is referenced in {{ ref() }} SQL.
func refName(m *Model) string { return fmt.Sprintf("{{ ref('%s') }}", m.Name) }
