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
	"github.com/ripple-data/ripple/internal/sqldiff"
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
	Select                  string `json:"select,omitempty" jsonschema:"dbt selector of the models to list (default: all), not of what counts as changed"`
	SkipValueDiff           bool   `json:"skip_value_diff,omitempty" jsonschema:"run no value diff (models not added or removed stay potential)"`
	SkipDownstreamValueDiff bool   `json:"skip_downstream_value_diff,omitempty" jsonschema:"value-diff only modified models, not downstream ones"`
	UseColumnLineage        *bool  `json:"use_column_lineage,omitempty" jsonschema:"rule out downstream models reading no changed column (default true)"`
	MaxValueDiffRows        int64  `json:"max_value_diff_rows,omitempty" jsonschema:"views with more rows are not value-diffed; 0 = 1000000, -1 = no limit"`
	Threads                 int    `json:"threads,omitempty" jsonschema:"models checked in the warehouse at once (default 4, at most 64)"`
	Detail                  string `json:"detail,omitempty" jsonschema:"compact (default) or full: every field and not-impacted name"`
	AllowEmpty              bool   `json:"allow_empty,omitempty" jsonschema:"accept a select/exclude term naming nothing (default: error)"`
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
	Base     *int64   `json:"base" jsonschema:"base rows (null: see base_status)"`
	Current  *int64   `json:"current" jsonschema:"current rows (null: see current_status)"`
	Delta    *int64   `json:"delta" jsonschema:"current minus base (null unless both are counted)"`
	DeltaPct *float64 `json:"delta_pct" jsonschema:"delta in % of base (null when base is 0 or null)"`
	// Status explains a missing count (table_not_found, permission_denied...).
	BaseStatus    string `json:"base_status,omitempty" jsonschema:"why base is null (not_in_manifest, table_not_found, permission_denied, ...)"`
	CurrentStatus string `json:"current_status,omitempty" jsonschema:"why current is null (as base_status)"`
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
	AffectedRowCount int64    `json:"affected_row_count" jsonschema:"rows in both whose value differs"`
	BaseMean         *float64 `json:"base_mean" jsonschema:"mean in base (numeric columns, else null)"`
	CurrentMean      *float64 `json:"current_mean" jsonschema:"mean in current (numeric columns, else null)"`
}

// ValueDiff is the key-joined comparison of a model's rows.
type ValueDiff struct {
	PrimaryKey       []string                   `json:"primary_key" jsonschema:"the key the rows were joined on"`
	AffectedRowCount int64                      `json:"affected_row_count" jsonschema:"rows_added + rows_removed + rows_changed"`
	RowsAdded        int64                      `json:"rows_added" jsonschema:"keys only in current"`
	RowsRemoved      int64                      `json:"rows_removed" jsonschema:"keys only in base"`
	RowsChanged      int64                      `json:"rows_changed" jsonschema:"keys in both with a column different"`
	Columns          map[string]ColumnValueDiff `json:"columns,omitempty" jsonschema:"per non-key column: changed rows and means"`
}

// NextAction is the one follow-up worth making for a model.
type NextAction struct {
	Tool     string   `json:"tool" jsonschema:"query_diff, profile_diff or query"`
	Columns  []string `json:"columns" jsonschema:"columns it is about (null: whole model)"`
	Reason   string   `json:"reason" jsonschema:"why this step"`
	Priority string   `json:"priority" jsonschema:"high, medium or low"`
	// Query is kept for callers of earlier versions.
	Query string `json:"query,omitempty" jsonschema:"Deprecated: use arguments.sql_template."`
	// Arguments are ready arguments for the tool.
	Arguments map[string]any `json:"arguments,omitempty" jsonschema:"ready arguments for the tool"`
}

// RejectedKey is a candidate key that failed verification.
type RejectedKey struct {
	Columns []string `json:"columns" jsonschema:"the candidate's columns"`
	Source  string   `json:"source" jsonschema:"as key_source"`
	Reason  string   `json:"reason" jsonschema:"what verification found (duplicate or NULL keys)"`
}

// Model is one impacted model's verdict.
type Model struct {
	Name           string   `json:"name" jsonschema:"model name"`
	UniqueID       string   `json:"unique_id,omitempty" jsonschema:"dbt unique id"`
	ResourceType   string   `json:"resource_type,omitempty" jsonschema:"model, seed or snapshot"`
	Materialized   string   `json:"materialized" jsonschema:"table, view, incremental, ..."`
	Classification string   `json:"classification,omitempty" jsonschema:"modified or downstream"`
	ChangeStatus   *string  `json:"change_status" jsonschema:"added, removed or modified; null downstream"`
	Modifications  []string `json:"modifications,omitempty" jsonschema:"state:modified sub-selectors matched"`
	// ChangeCategory comes from column lineage: breaking, partial_breaking, non_breaking or unknown.
	ChangeCategory      string         `json:"change_category,omitempty" jsonschema:"breaking, partial_breaking, non_breaking or unknown"`
	CodeChangedColumns  []string       `json:"code_changed_columns,omitempty" jsonschema:"modified models: columns the code change touches (column lineage)"`
	RowSetChanged       bool           `json:"row_set_changed,omitempty" jsonschema:"the change alters which rows exist (WHERE, JOIN, ...)"`
	ValueChangedColumns []string       `json:"value_changed_columns,omitempty" jsonschema:"columns the value diff found changed"`
	ImpactedVia         []string       `json:"impacted_via,omitempty" jsonschema:"changed upstream columns (model.column) reaching it"`
	ImpactedColumns     []string       `json:"impacted_columns,omitempty" jsonschema:"downstream models: columns a changed upstream column reaches"`
	PrimaryKey          []string       `json:"primary_key,omitempty" jsonschema:"the key rows are compared on; null when none verified"`
	KeySource           string         `json:"key_source,omitempty" jsonschema:"constraint, test, grain, lineage or name"`
	KeyVerified         bool           `json:"key_verified,omitempty" jsonschema:"the key is proven unique and not NULL"`
	KeyEvidence         string         `json:"key_evidence,omitempty" jsonschema:"how the key was found and verified"`
	RejectedKeys        []RejectedKey  `json:"rejected_keys,omitempty" jsonschema:"candidate keys that failed verification"`
	RowCount            *RowCount      `json:"row_count,omitempty" jsonschema:"row counts of both builds; null when not counted"`
	SchemaChanges       []SchemaChange `json:"schema_changes,omitempty" jsonschema:"changed columns from the catalogs: [] = unchanged, null = not comparable"`
	ValueDiff           *ValueDiff     `json:"value_diff,omitempty" jsonschema:"the key-joined comparison; null when none ran"`
	ValueDiffSkipped    string         `json:"value_diff_skipped,omitempty" jsonschema:"why no value diff ran"`
	AffectedRowCount    *int64         `json:"affected_row_count" jsonschema:"rows that differ; null when potential"`
	VerdictBasis        string         `json:"verdict_basis,omitempty" jsonschema:"value_diff, added_model or removed_model; empty when potential"`
	DataImpact          string         `json:"data_impact" jsonschema:"confirmed, none (verified unchanged) or potential (follow next_action)"`
	NextAction          *NextAction    `json:"next_action,omitempty" jsonschema:"the follow-up to make; null when none is needed"`
	Warning             string         `json:"warning,omitempty" jsonschema:"a problem with this model's comparison"`
	// CodeChange says what the code edit of a modified model is.
	CodeChange *sqldiff.CodeChange `json:"code_change,omitempty" jsonschema:"as sql_diff"`

	// compact marks a row that marshals in its short form.
	compact bool
}

// NotImpacted is a downstream model column lineage rules out.
type NotImpacted struct {
	Name           string   `json:"name" jsonschema:"model name"`
	UniqueID       string   `json:"unique_id" jsonschema:"dbt unique id"`
	Reason         string   `json:"reason" jsonschema:"why it is not impacted"`
	Reads          []string `json:"reads_columns" jsonschema:"changed-side upstream columns it reads"`
	CheckedAgainst []string `json:"checked_against" jsonschema:"changed upstream columns, none reaching it"`
}

// NotImpactedSummary counts the not-impacted models a compact result does
// not name.
type NotImpactedSummary struct {
	Count     int            `json:"count" jsonschema:"models"`
	ByPackage map[string]int `json:"by_package" jsonschema:"per package"`
	ByFolder  map[string]int `json:"by_folder" jsonschema:"per folder"`
}

// StepError is a step that failed without failing the analysis.
type StepError struct {
	Step    string `json:"step" jsonschema:"row_count_diff, schema_diff or value_diff"`
	Model   string `json:"model,omitempty" jsonschema:"its model, if any"`
	Message string `json:"message" jsonschema:"what went wrong"`
}

// SuggestedCheck is a ready create_check call.
type SuggestedCheck struct {
	Type        string         `json:"type" jsonschema:"row_count_diff, value_diff or schema_diff"`
	Name        string         `json:"name" jsonschema:"check name"`
	Description string         `json:"description" jsonschema:"what the check records"`
	Params      map[string]any `json:"params" jsonschema:"ready params for create_check"`
}

// Result is the triage of the whole change.
type Result struct {
	Guidance             string `json:"_guidance" jsonschema:"how to read this result"`
	ClassificationSource string `json:"classification_source" jsonschema:"column_lineage or lineage_dag (model-level only)"`
	SingleEnv            bool   `json:"single_env" jsonschema:"no base build (nothing can differ)"`
	Warning              string `json:"_warning,omitempty" jsonschema:"a warning on the whole result"`
	Detail               string `json:"detail" jsonschema:"compact or full (the detail parameter)"`
	// MaxAffectedRowCount is the largest affected_row_count of one model (not a total).
	MaxAffectedRowCount             int64               `json:"max_affected_row_count" jsonschema:"largest affected_row_count of one model"`
	ModifiedCount                   int                 `json:"modified_count" jsonschema:"models modified, added or removed"`
	DownstreamCount                 int                 `json:"downstream_count" jsonschema:"impacted downstream models"`
	Counts                          Counts              `json:"counts" jsonschema:"counts that add up to the lists"`
	ConfirmedImpactedModels         []*Model            `json:"confirmed_impacted_models" jsonschema:"modified, then downstream models, each with one data_impact"`
	ConfirmedNotImpactedModels      []string            `json:"confirmed_not_impacted_models" jsonschema:"models no data-affecting change reaches; they need no review"`
	NotImpactedSummary              *NotImpactedSummary `json:"not_impacted_summary,omitempty" jsonschema:"not-impacted models not named (detail=full names them)"`
	NotImpactedByColumnLineage      []NotImpacted       `json:"not_impacted_by_column_lineage,omitempty" jsonschema:"ruled-out models with evidence (compact: first 10)"`
	NotImpactedByColumnLineageCount int                 `json:"not_impacted_by_column_lineage_count" jsonschema:"models column lineage rules out"`
	SchemaCoverage                  diff.SchemaCoverage `json:"schema_coverage" jsonschema:"whether every schema was compared"`
	SuggestedChecks                 []SuggestedCheck    `json:"suggested_checks" jsonschema:"create_check arguments worth saving for CI"`
	Errors                          []StepError         `json:"errors" jsonschema:"failed steps (the rest still ran)"`
	// CosmeticOnlyModels are listed apart so a reviewer sees why a modified
	// model is not impacted (they are in confirmed_not_impacted_models too).
	CosmeticOnlyModels []string `json:"cosmetic_only_models,omitempty" jsonschema:"modified only cosmetically (code_change says so): not impacted"`
	// Reach (reach.go): exposures, metrics, saved queries, semantic models, unit tests.
	Reach
}

// Counts are the models of a result by change and verdict. They add up:
// Impacted = Modified + Added + Removed + Downstream (the entries of
// confirmed_impacted_models) and NotImpacted counts every model in scope
// that is not impacted, RuledOutByColumnLineage of them ruled out.
type Counts struct {
	Impacted                int `json:"-"`
	Modified                int `json:"modified" jsonschema:"modified"`
	Added                   int `json:"added" jsonschema:"added"`
	Removed                 int `json:"removed" jsonschema:"removed"`
	Downstream              int `json:"downstream" jsonschema:"downstream"`
	NotImpacted             int `json:"not_impacted" jsonschema:"not impacted, listed or summarised"`
	RuledOutByColumnLineage int `json:"-"`
}

// Tally counts a result's lists: the one definition of every count, which
// Analyze stores in Counts and the renderers of hand-built results reuse.
func (r *Result) Tally() Counts {
	c := Counts{Impacted: len(r.ConfirmedImpactedModels), NotImpacted: len(r.ConfirmedNotImpactedModels),
		RuledOutByColumnLineage: len(r.NotImpactedByColumnLineage)}
	if r.NotImpactedSummary != nil {
		c.NotImpacted += r.NotImpactedSummary.Count
	}
	for _, m := range r.ConfirmedImpactedModels {
		switch {
		case m.ChangeStatus == nil || m.Classification == ChangeDownstream:
			c.Downstream++
		case *m.ChangeStatus == "added":
			c.Added++
		case *m.ChangeStatus == "removed":
			c.Removed++
		default:
			c.Modified++
		}
	}
	return c
}

// Sentence is how every text surface (CLI, summary) words the counts.
func (c Counts) Sentence() string {
	s := fmt.Sprintf("%d impacted (%d modified, %d added, %d removed, %d downstream), %d not impacted",
		c.Impacted, c.Modified, c.Added, c.Removed, c.Downstream, c.NotImpacted)
	if c.RuledOutByColumnLineage > 0 {
		s += fmt.Sprintf(" (%d ruled out by column lineage)", c.RuledOutByColumnLineage)
	}
	return s
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
	// Verdicts is the session's impact model (Classify over DefaultSelect
	// with Lineage); nil: Analyze classifies for this call.
	Verdicts *Verdicts
	// WarehouseErr is why no warehouse connection could be opened, if so;
	// the data steps report it instead of running.
	WarehouseErr error
	// SchemaDiff compares catalogs; nil means diff.SchemaDiff.
	SchemaDiff func(ctx context.Context, env diff.Env, in diff.SchemaDiffInput) (*diff.SchemaDiffResult, error)
	// Keys caches key checks per relation across calls; nil: per call.
	Keys *KeyCache
	// KeepCosmetic counts cosmetic-only code edits as changes (dbt's plain
	// state:modified.body meaning). Not an input field yet: the default
	// tools/list has no room left for it.
	KeepCosmetic bool
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
	a, err := newAnalysis(ctx, d, in, res)
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
	a.verdicts.Record(a.models)
	if res.Detail == DetailCompact {
		a.summariseNotImpacted()
	}
	res.Counts = res.Tally()
	ComputeReach(cmp, d.Lineage, res)
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
