package impact

// Data step outcomes of an analysis, as DataSteps reports them.
const (
	DataStepsOK      = "ok"      // no data step failed
	DataStepsPartial = "partial" // some failed (see Errors), others measured
	DataStepsFailed  = "failed"  // steps failed and nothing was measured
)

// DataSteps says whether the warehouse steps ran: ok, partial or failed.
// failed means that steps failed and no model got a row count or a value
// diff (e.g. the warehouse could not be opened), so every N/A of the result
// is a failure, not a measurement. The CLI exits non-zero on it.
func (r *Result) DataSteps() string {
	if len(r.Errors) == 0 {
		return DataStepsOK
	}
	for _, m := range r.ConfirmedImpactedModels {
		if m.ValueDiff != nil || m.RowCount != nil && (m.RowCount.Base != nil || m.RowCount.Current != nil) {
			return DataStepsPartial
		}
	}
	return DataStepsFailed
}
