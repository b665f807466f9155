package impact

import "encoding/json"

// The JSON forms of a result. The Go values always carry every field (the
// summary and the text renderer read them); only the JSON is compacted.

// modelFields is Model without its methods, for encoding.
type modelFields Model

// compactModel is the short row of a model whose value diff found no
// change: the seed's triage fields, nothing to investigate.
type compactModel struct {
	Name             string  `json:"name"`
	ChangeStatus     *string `json:"change_status"`
	Materialized     string  `json:"materialized"`
	DataImpact       string  `json:"data_impact"`
	AffectedRowCount *int64  `json:"affected_row_count"`
}

// MarshalJSON writes a full entry with every seed field present (null
// when unknown: schema_changes null means "not compared", [] "unchanged"),
// or the short row of a compact response.
func (m *Model) MarshalJSON() ([]byte, error) {
	if m.compact {
		return json.Marshal(compactModel{Name: m.Name, ChangeStatus: m.ChangeStatus, Materialized: m.Materialized,
			DataImpact: m.DataImpact, AffectedRowCount: m.AffectedRowCount})
	}
	// The outer fields shadow the embedded omitempty ones.
	return json.Marshal(struct {
		*modelFields
		RowCount      *RowCount      `json:"row_count"`
		SchemaChanges []SchemaChange `json:"schema_changes"`
		ValueDiff     *ValueDiff     `json:"value_diff"`
		NextAction    *NextAction    `json:"next_action"`
	}{(*modelFields)(m), m.RowCount, m.SchemaChanges, m.ValueDiff, m.NextAction})
}

type resultFields Result

// MarshalJSON leaves the column-lineage evidence out of a compact response
// (not_impacted_by_column_lineage_count still says how many were ruled out).
func (r *Result) MarshalJSON() ([]byte, error) {
	if r.Detail == DetailCompact {
		return json.Marshal(struct {
			*resultFields
			NotImpactedByColumnLineage []NotImpacted `json:"not_impacted_by_column_lineage,omitempty"`
		}{(*resultFields)(r), nil})
	}
	return json.Marshal(struct {
		*resultFields
		NotImpactedByColumnLineage []NotImpacted `json:"not_impacted_by_column_lineage"`
	}{(*resultFields)(r), r.NotImpactedByColumnLineage})
}
