// Package impact is the one-call triage of a pull request: it classifies
// every model (modified / downstream / not impacted), counts rows, compares
// schemas, verifies data with value diffs where a key exists, and tells the
// caller the one next step worth taking per model.
package impact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/lineage"
)

// DefaultSelect leaves config-only changes out: only changes that can alter data.
const DefaultSelect = "state:modified.body+ state:modified.macros+ state:modified.contract+"

// Input configures the analysis.
type Input struct {
	Select                  string `json:"select,omitempty" jsonschema:"dbt selector of impacted nodes (default: state:modified.body+ state:modified.macros+ state:modified.contract+); space = union, comma = intersection, name* = prefix"`
	SkipValueDiff           bool   `json:"skip_value_diff,omitempty" jsonschema:"skip every value diff (no diff SQL runs); every model's data_impact is then potential"`
	SkipDownstreamValueDiff bool   `json:"skip_downstream_value_diff,omitempty" jsonschema:"value-diff only modified models, not downstream ones"`
	UseColumnLineage        *bool  `json:"use_column_lineage,omitempty" jsonschema:"prune downstream models that read none of the changed columns (default true)"`
}

// Data impact verdicts.
const (
	Confirmed = "confirmed" // a value diff found changed rows
	None      = "none"      // a value diff found no changed rows
	Potential = "potential" // no value diff could be run
)

// RowCount is a model's row counts with the change.
type RowCount struct {
	Base     *int64   `json:"base"`
	Current  *int64   `json:"current"`
	Delta    *int64   `json:"delta"`
	DeltaPct *float64 `json:"delta_pct"`
	// Status explains a missing count (table_not_found, permission_denied...).
	BaseStatus    string `json:"base_status,omitempty"`
	CurrentStatus string `json:"current_status,omitempty"`
}

// SchemaChange is one changed column.
type SchemaChange struct {
	Column       string `json:"column"`
	ChangeStatus string `json:"change_status"`
	BaseType     string `json:"base_type,omitempty"`
	CurrentType  string `json:"current_type,omitempty"`
}

// ColumnValueDiff is a column's share of a value diff.
type ColumnValueDiff struct {
	AffectedRowCount int64    `json:"affected_row_count"`
	BaseMean         *float64 `json:"base_mean"`
	CurrentMean      *float64 `json:"current_mean"`
}

// ValueDiff is the key-joined comparison of a model's rows.
type ValueDiff struct {
	PrimaryKey       []string                   `json:"primary_key"`
	AffectedRowCount int64                      `json:"affected_row_count"`
	RowsAdded        int64                      `json:"rows_added"`
	RowsRemoved      int64                      `json:"rows_removed"`
	RowsChanged      int64                      `json:"rows_changed"`
	Columns          map[string]ColumnValueDiff `json:"columns"`
}

// NextAction is the one follow-up worth making for a model.
type NextAction struct {
	Tool     string   `json:"tool"`
	Columns  []string `json:"columns"`
	Reason   string   `json:"reason"`
	Priority string   `json:"priority"`
	// Query is a ready query_diff SQL in {{ ref() }} form, for tool query_diff.
	Query string `json:"query,omitempty"`
	// Arguments are ready arguments for the tool.
	Arguments map[string]any `json:"arguments,omitempty"`
}

// Model is one impacted model's verdict.
type Model struct {
	Name           string   `json:"name"`
	UniqueID       string   `json:"unique_id"`
	ResourceType   string   `json:"resource_type"`
	Materialized   string   `json:"materialized"`
	Classification string   `json:"classification"`
	ChangeStatus   *string  `json:"change_status"`
	Modifications  []string `json:"modifications"`
	// ChangeCategory comes from column lineage: breaking, partial_breaking, non_breaking or unknown.
	ChangeCategory string   `json:"change_category,omitempty"`
	ChangedColumns []string `json:"changed_columns,omitempty"`
	// ImpactedVia lists the upstream evidence for downstream models.
	ImpactedVia      []string        `json:"impacted_via,omitempty"`
	RowCount         *RowCount       `json:"row_count"`
	SchemaChanges    []SchemaChange  `json:"schema_changes"`
	ValueDiff        *ValueDiff      `json:"value_diff"`
	ValueDiffSkipped string          `json:"value_diff_skipped,omitempty"`
	AffectedRowCount *int64          `json:"affected_row_count"`
	DataImpact       string          `json:"data_impact"`
	NextAction       *NextAction     `json:"next_action"`
	pk               *dbt.PrimaryKey `json:"-"`
}

// NotImpacted is a model moved out of the impacted set by column lineage.
type NotImpacted struct {
	Name     string   `json:"name"`
	UniqueID string   `json:"unique_id"`
	Reason   string   `json:"reason"`
	Reads    []string `json:"reads_columns,omitempty"`
}

// StepError is a step that failed without failing the analysis.
type StepError struct {
	Step    string `json:"step"`
	Model   string `json:"model,omitempty"`
	Message string `json:"message"`
}

// SuggestedCheck is a ready create_check call.
type SuggestedCheck struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Params      map[string]any `json:"params"`
}

// Result is the triage of the whole change.
type Result struct {
	Guidance             string `json:"_guidance"`
	ClassificationSource string `json:"classification_source"`
	SingleEnv            bool   `json:"single_env"`
	Warning              string `json:"_warning,omitempty"`
	// MaxAffectedRowCount is the largest affected_row_count of one model (not a total).
	MaxAffectedRowCount        int64               `json:"max_affected_row_count"`
	ModifiedCount              int                 `json:"modified_count"`
	DownstreamCount            int                 `json:"downstream_count"`
	ImpactedModels             []*Model            `json:"impacted_models"`
	ConfirmedNotImpactedModels []string            `json:"confirmed_not_impacted_models"`
	NotImpactedByColumnLineage []NotImpacted       `json:"not_impacted_by_column_lineage"`
	SchemaCoverage             diff.SchemaCoverage `json:"schema_coverage"`
	SuggestedChecks            []SuggestedCheck    `json:"suggested_checks"`
	Errors                     []StepError         `json:"errors"`
}

// ColumnChange is what column lineage says about one modified model.
type ColumnChange struct {
	ModelID string
	// Columns whose values may differ (added, removed or re-derived).
	Columns []string
	// RowSetChanged is true when WHERE/JOIN/GROUP/DISTINCT changed, so every
	// reader is affected whatever columns it reads.
	RowSetChanged bool
	Category      string
}

// Reach is the downstream effect of a set of column changes.
type Reach struct {
	// Reached maps reached model ids to evidence ("orders.amount ← stg_payments.amount").
	Reached map[string][]string
	// NotReached maps downstream models that read a changed model but none of
	// its changed columns to the columns they do read.
	NotReached map[string][]string
	// Known holds the models whose lineage is fully known (not opaque); only
	// those may be ruled out.
	Known map[string]bool
}

// ColumnLineage is the column-level lineage impact analysis needs.
type ColumnLineage interface {
	// Change describes a modified model; ok=false when lineage cannot tell
	// (opaque SQL), in which case every column counts as changed.
	Change(ctx context.Context, modelID string) (ColumnChange, bool)
	// Reach follows changed columns downstream; opaque models are always reached.
	Reach(ctx context.Context, changes []ColumnChange) Reach
}

// ValueDiffer runs a key-joined value diff of one model.
type ValueDiffer func(ctx context.Context, modelID string, primaryKey []string) (*ValueDiff, error)

// Deps are the collaborators of an analysis.
type Deps struct {
	Comparison *lineage.Comparison
	// Select resolves a selector to unique ids (default packages).
	Select func(selectExpr string) ([]string, error)
	// Diff runs the row-count step; its Conn may be nil when no warehouse is configured.
	Diff diff.Env
	// ValueDiff runs value diffs; nil disables the step.
	ValueDiff ValueDiffer
	// Lineage is optional column lineage.
	Lineage ColumnLineage
	// WarehouseErr is why no warehouse connection could be opened, if so;
	// the data steps report it instead of running.
	WarehouseErr error
	// SchemaDiff compares catalogs; nil means diff.SchemaDiff.
	SchemaDiff func(ctx context.Context, env diff.Env, in diff.SchemaDiffInput) (*diff.SchemaDiffResult, error)
}

var tracked = map[string]bool{dbt.Model: true, dbt.Snapshot: true, dbt.Seed: true}

// Analyze runs the triage. Each step is resilient: a failure adds an entry
// to Errors and the other steps go on.
func Analyze(ctx context.Context, d Deps, in Input) (*Result, error) {
	cmp := d.Comparison
	sel := in.Select
	if strings.TrimSpace(sel) == "" {
		sel = DefaultSelect
	}
	ids, err := d.Select(sel)
	if err != nil {
		return nil, err
	}
	res := &Result{
		Guidance: Guidance, ClassificationSource: "lineage_dag", SingleEnv: cmp.Project.SingleEnv,
		ImpactedModels: []*Model{}, ConfirmedNotImpactedModels: []string{}, NotImpactedByColumnLineage: []NotImpacted{},
		SuggestedChecks: []SuggestedCheck{}, Errors: []StepError{},
	}
	if cmp.Project.SingleEnv {
		res.Warning = dbt.SingleEnvWarning
	}
	selected := map[string]bool{}
	for _, id := range ids {
		selected[id] = true
	}
	byID := map[string]*Model{}
	for _, id := range cmp.Graph.IDs() {
		n, ok := cmp.Graph.Node(id)
		if !ok || !tracked[n.ResourceType] || n.Disabled {
			continue
		}
		if !selected[id] {
			continue
		}
		m := &Model{Name: n.Name, UniqueID: id, ResourceType: n.ResourceType, Materialized: n.Materialized(),
			Modifications: []string{}, DataImpact: Potential}
		if st, ok := cmp.State[id]; ok {
			s := st.ChangeStatus
			m.ChangeStatus = &s
			m.Classification = "modified"
			for _, mod := range st.Modifications {
				m.Modifications = append(m.Modifications, string(mod))
			}
		} else {
			m.Classification = "downstream"
		}
		byID[id] = m
	}

	useCLL := in.UseColumnLineage == nil || *in.UseColumnLineage
	if useCLL && d.Lineage != nil {
		pruneWithColumnLineage(ctx, d, byID, res)
	}
	pruned := map[string]bool{}
	for _, n := range res.NotImpactedByColumnLineage {
		pruned[n.UniqueID] = true
	}
	for _, id := range cmp.Graph.IDs() {
		n, _ := cmp.Graph.Node(id)
		if n.ResourceType == dbt.Model && !n.Disabled && byID[id] == nil && !pruned[id] && cmp.Graph.InCurrent(id) {
			res.ConfirmedNotImpactedModels = append(res.ConfirmedNotImpactedModels, n.Name)
		}
	}
	sort.Strings(res.ConfirmedNotImpactedModels)

	models := make([]*Model, 0, len(byID))
	for _, m := range byID {
		models = append(models, m)
	}
	sort.Slice(models, func(i, j int) bool {
		if (models[i].Classification == "modified") != (models[j].Classification == "modified") {
			return models[i].Classification == "modified"
		}
		return models[i].Name < models[j].Name
	})
	res.ImpactedModels = models
	for _, m := range models {
		if m.Classification == "modified" {
			res.ModifiedCount++
		} else {
			res.DownstreamCount++
		}
	}

	rowCounts(ctx, d, models, res)
	schemaChanges(ctx, d, models, res)
	valueDiffs(ctx, d, in, models, res)
	for _, m := range models {
		verdict(m)
		m.NextAction = nextAction(d, m)
		if m.AffectedRowCount != nil && *m.AffectedRowCount > res.MaxAffectedRowCount {
			res.MaxAffectedRowCount = *m.AffectedRowCount
		}
	}
	res.SuggestedChecks = suggestedChecks(models)
	return res, ctx.Err()
}

func pruneWithColumnLineage(ctx context.Context, d Deps, byID map[string]*Model, res *Result) {
	var changes []ColumnChange
	for id, m := range byID {
		if m.Classification != "modified" {
			continue
		}
		ch, ok := d.Lineage.Change(ctx, id)
		if !ok {
			ch = ColumnChange{ModelID: id, RowSetChanged: true, Category: "unknown"}
		}
		m.ChangeCategory = ch.Category
		m.ChangedColumns = ch.Columns
		changes = append(changes, ch)
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].ModelID < changes[j].ModelID })
	reach := d.Lineage.Reach(ctx, changes)
	res.ClassificationSource = "column_lineage"
	for id, m := range byID {
		if m.Classification != "downstream" {
			continue
		}
		if ev, ok := reach.Reached[id]; ok || !reach.Known[id] {
			m.ImpactedVia = ev
			continue
		}
		reads := reach.NotReached[id]
		delete(byID, id)
		res.NotImpactedByColumnLineage = append(res.NotImpactedByColumnLineage, NotImpacted{
			Name: m.Name, UniqueID: id, Reads: reads,
			Reason: "column lineage: it reads none of the changed columns of its modified upstream models",
		})
	}
	sort.Slice(res.NotImpactedByColumnLineage, func(i, j int) bool {
		return res.NotImpactedByColumnLineage[i].Name < res.NotImpactedByColumnLineage[j].Name
	})
}

func rowCounts(ctx context.Context, d Deps, models []*Model, res *Result) {
	if d.WarehouseErr != nil {
		if len(models) > 0 {
			res.Errors = append(res.Errors, StepError{Step: "row_count_diff", Message: d.WarehouseErr.Error()})
		}
		return
	}
	ids := make([]string, 0, len(models))
	for _, m := range models {
		ids = append(ids, m.UniqueID)
	}
	if len(ids) == 0 {
		return
	}
	rc, err := diff.RowCountDiff(ctx, d.Diff, diff.RowCountDiffInput{NodeIDs: ids})
	if err != nil {
		res.Errors = append(res.Errors, StepError{Step: "row_count_diff", Message: err.Error()})
		return
	}
	for _, m := range models {
		c, ok := rc.Models[m.Name]
		if !ok {
			c, ok = rc.Models[m.UniqueID]
		}
		if !ok {
			continue
		}
		r := &RowCount{Base: c.Base, Current: c.Current}
		if c.BaseMeta.Status != diff.StatusOK {
			r.BaseStatus = c.BaseMeta.Status
		}
		if c.CurrentMeta.Status != diff.StatusOK {
			r.CurrentStatus = c.CurrentMeta.Status
		}
		if c.Base != nil && c.Current != nil {
			delta := *c.Current - *c.Base
			r.Delta = &delta
			if *c.Base != 0 {
				p := math.Round(float64(delta)/float64(*c.Base)*1000) / 10
				r.DeltaPct = &p
			}
		}
		if c.Base == nil && c.Current == nil && (r.CurrentStatus == diff.StatusTableNotFound || r.CurrentStatus == diff.StatusPermissionDenied ||
			r.BaseStatus == diff.StatusTableNotFound || r.BaseStatus == diff.StatusPermissionDenied) {
			res.Errors = append(res.Errors, StepError{Step: "row_count_diff", Model: m.Name, Message: firstNonEmpty(c.CurrentMeta.Message, c.BaseMeta.Message)})
		} else if (r.CurrentStatus == diff.StatusTableNotFound || r.CurrentStatus == diff.StatusPermissionDenied) && c.Current == nil {
			res.Errors = append(res.Errors, StepError{Step: "row_count_diff", Model: m.Name, Message: c.CurrentMeta.Message})
		}
		m.RowCount = r
	}
}

func schemaChanges(ctx context.Context, d Deps, models []*Model, res *Result) {
	res.SchemaCoverage = diff.SchemaCoverage{Status: "complete", UncheckedNodes: []string{}}
	var both []string
	for _, m := range models {
		if m.ChangeStatus != nil && (*m.ChangeStatus == "added" || *m.ChangeStatus == "removed") {
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
		if m.ChangeStatus != nil && (*m.ChangeStatus == "added" || *m.ChangeStatus == "removed") {
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
	if *m.ChangeStatus == "removed" {
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

var tableLike = map[string]bool{"table": true, "incremental": true, "snapshot": true, "seed": true}

func valueDiffs(ctx context.Context, d Deps, in Input, models []*Model, res *Result) {
	for _, m := range models {
		switch {
		case in.SkipValueDiff:
			m.ValueDiffSkipped = "skip_value_diff"
		case in.SkipDownstreamValueDiff && m.Classification == "downstream":
			m.ValueDiffSkipped = "skip_downstream_value_diff"
		case m.ChangeStatus != nil && *m.ChangeStatus == "added":
			m.ValueDiffSkipped = "added model: no base to compare"
		case m.ChangeStatus != nil && *m.ChangeStatus == "removed":
			m.ValueDiffSkipped = "removed model: no current to compare"
		case !tableLike[materialization(m)]:
			m.ValueDiffSkipped = materialization(m) + ": value diff runs on table-like models only"
		case d.ValueDiff == nil:
			m.ValueDiffSkipped = "no warehouse connection"
			if d.WarehouseErr != nil {
				m.ValueDiffSkipped = "no warehouse connection (see errors)"
			}
		}
		if m.ValueDiffSkipped != "" {
			continue
		}
		m.pk = d.Comparison.Project.Current.Manifest.PrimaryKeyOf(m.UniqueID)
		if m.pk == nil {
			m.ValueDiffSkipped = "no primary key (declare a primary_key constraint or add a unique test)"
			continue
		}
		vd, err := d.ValueDiff(ctx, m.UniqueID, m.pk.Columns)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return
			}
			m.ValueDiffSkipped = "value diff failed"
			res.Errors = append(res.Errors, StepError{Step: "value_diff", Model: m.Name, Message: err.Error()})
			continue
		}
		m.ValueDiff = vd
	}
}

func materialization(m *Model) string {
	if m.ResourceType == dbt.Snapshot {
		return "snapshot"
	}
	if m.ResourceType == dbt.Seed {
		return "seed"
	}
	return m.Materialized
}

func verdict(m *Model) {
	if m.ValueDiff == nil {
		m.DataImpact = Potential
		m.AffectedRowCount = nil
		return
	}
	a := m.ValueDiff.AffectedRowCount
	m.AffectedRowCount = &a
	if a > 0 {
		m.DataImpact = Confirmed
	} else {
		m.DataImpact = None
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// refName is how a model is referenced in {{ ref() }} SQL.
func refName(m *Model) string { return fmt.Sprintf("{{ ref('%s') }}", m.Name) }
