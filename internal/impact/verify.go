package impact

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ripple-data/ripple/internal/diff"
)

// checkData runs the warehouse steps of every reported model on a bounded
// pool: row counts, key verification, value diffs. A model's steps run in
// order; models run concurrently (the warehouse connection is a pool).
func (a *analysis) checkData(ctx context.Context) {
	if len(a.models) == 0 {
		return
	}
	if a.d.WarehouseErr != nil || a.d.Diff.Conn == nil {
		skipped := "no warehouse connection"
		if a.d.WarehouseErr != nil {
			a.res.Errors = append(a.res.Errors, StepError{Step: "row_count_diff", Message: a.d.WarehouseErr.Error()})
			skipped += " (see errors)"
		}
		for _, m := range a.models {
			m.ValueDiffSkipped = skipped
		}
		return
	}
	env := diff.WithCatalogColumns(a.d.Diff)
	env.Progress = nil // one report per model instead (below)
	finder := newKeyFinder(a)
	cands := make([][]keyCandidate, len(a.models))
	for i, m := range a.models {
		if !isAdded(m) && !isRemoved(m) {
			cands[i] = finder.candidates(m)
		}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	var pmu sync.Mutex
	done := 0
	for range min(a.in.threads(), len(a.models)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				m := a.models[i]
				a.check(ctx, env, m, cands[i])
				pmu.Lock()
				done++
				if a.d.Progress != nil {
					a.d.Progress(done, len(a.models), progressLine(m))
				}
				pmu.Unlock()
			}
		}()
	}
	for i := range a.models {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

func progressLine(m *Model) string {
	switch {
	case m.DataImpact == Potential:
		return fmt.Sprintf("%s: potential (%s)", m.Name, m.ValueDiffSkipped)
	case m.AffectedRowCount != nil:
		return fmt.Sprintf("%s: %s, %d rows affected", m.Name, m.DataImpact, *m.AffectedRowCount)
	}
	return m.Name + ": " + m.DataImpact
}

func (a *analysis) addError(e StepError) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.res.Errors = append(a.res.Errors, e)
}

// check gives one model its row counts, key and verdict.
func (a *analysis) check(ctx context.Context, env diff.Env, m *Model, cands []keyCandidate) {
	switch {
	case isAdded(m), isRemoved(m):
		a.oneSidedVerdict(ctx, env, m)
		return
	}
	if rel, same := diff.SameRelation(env, m.UniqueID); same {
		m.Warning = "base and current are the same table " + rel + ": comparing it cannot show a change, so no verdict is possible"
		bs, cs := a.counts(ctx, env, m)
		m.RowCount = a.rowCount(m, bs, cs)
		m.ValueDiffSkipped = "base and current are the same table"
		return
	}
	bs, cs := a.findKey(ctx, env, m, cands)
	if bs == nil {
		bs, cs = a.counts(ctx, env, m)
	}
	m.RowCount = a.rowCount(m, bs, cs)
	if m.ValueDiffSkipped = a.skipReason(m, bs, cs); m.ValueDiffSkipped != "" {
		return
	}
	vd, err := a.valueDiff(ctx, env, m)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			m.ValueDiffSkipped = "value diff failed (see errors)"
			a.addError(StepError{Step: "value_diff", Model: m.Name, Message: err.Error()})
		}
		return
	}
	m.ValueDiff = vd
	m.ValueChangedColumns = changedValueColumns(vd)
	a.verdict(m, vd.AffectedRowCount, BasisValueDiff)
}

// verdict settles a model: confirmed when rows are affected, else none.
func (a *analysis) verdict(m *Model, affected int64, basis string) {
	m.AffectedRowCount, m.VerdictBasis, m.DataImpact = &affected, basis, None
	if affected > 0 {
		m.DataImpact = Confirmed
	}
}

// oneSidedVerdict settles an added or removed model: every row of the
// side that exists is new (or gone).
func (a *analysis) oneSidedVerdict(ctx context.Context, env diff.Env, m *Model) {
	side, basis, what := diff.Current, BasisAddedModel, "added model: there is no base to compare, every current row is new"
	if isRemoved(m) {
		side, basis, what = diff.Base, BasisRemovedModel, "removed model: there is no current to compare, every base row is gone"
	}
	st, err := a.stats(ctx, env, m, side, nil)
	if err != nil {
		a.addError(StepError{Step: "row_count_diff", Model: m.Name, Message: err.Error()})
	}
	missing := diff.SideStats{Meta: diff.RowCountMeta{Status: diff.StatusNotInManifest}}
	if side == diff.Current {
		m.RowCount = a.rowCount(m, &missing, &st)
	} else {
		m.RowCount = a.rowCount(m, &st, &missing)
	}
	m.ValueDiffSkipped = what
	if st.Rows == nil {
		m.ValueDiffSkipped += "; its rows could not be counted (" + st.Meta.Status + ")"
		return
	}
	a.verdict(m, *st.Rows, basis)
}

// findKey tries the candidates in order and keeps the first that is proven
// or verified on both sides. It returns the stats of the last checked
// candidate (they carry the row counts), nil when none was checked.
func (a *analysis) findKey(ctx context.Context, env diff.Env, m *Model, cands []keyCandidate) (bs, cs *diff.SideStats) {
	for _, c := range cands {
		if c.proven {
			a.useKey(m, c, c.evidence)
			return bs, cs
		}
		b, errB := a.stats(ctx, env, m, diff.Base, c.columns)
		cur, errC := a.stats(ctx, env, m, diff.Current, c.columns)
		if ctx.Err() != nil {
			return nil, nil
		}
		if err := errors.Join(errB, errC); err != nil {
			m.RejectedKeys = append(m.RejectedKeys, RejectedKey{Columns: c.columns, Source: c.source, Reason: "could not be checked: " + err.Error()})
			continue
		}
		bs, cs = &b, &cur
		if b.Rows == nil || cur.Rows == nil {
			// A relation is missing: no key can be verified.
			return bs, cs
		}
		if b.KeyUnique() && cur.KeyUnique() {
			a.useKey(m, c, fmt.Sprintf("%s; verified unique and not NULL in base (%d rows) and current (%d rows)", c.evidence, *b.Rows, *cur.Rows))
			m.KeyVerified = true
			return bs, cs
		}
		m.RejectedKeys = append(m.RejectedKeys, RejectedKey{Columns: c.columns, Source: c.source, Reason: keyProblem(b, cur)})
	}
	return bs, cs
}

func (a *analysis) useKey(m *Model, c keyCandidate, evidence string) {
	m.PrimaryKey, m.KeySource, m.KeyEvidence, m.KeyVerified = c.columns, c.source, evidence, c.proven
}

func keyProblem(b, c diff.SideStats) string {
	var parts []string
	for _, s := range []struct {
		side string
		st   diff.SideStats
	}{{"base", b}, {"current", c}} {
		if s.st.DuplicateKeys > 0 {
			parts = append(parts, fmt.Sprintf("%d key values occur more than once in %s", s.st.DuplicateKeys, s.side))
		}
		if s.st.NullKeys > 0 {
			parts = append(parts, fmt.Sprintf("%d rows have a NULL key in %s", s.st.NullKeys, s.side))
		}
	}
	return "not unique: " + strings.Join(parts, "; ")
}

// stats counts (and with keys checks) one side, caching key checks.
func (a *analysis) stats(ctx context.Context, env diff.Env, m *Model, s diff.Side, keys []string) (diff.SideStats, error) {
	ck := keyCacheKey(m.UniqueID, s, keys)
	if len(keys) > 0 {
		if v, ok := a.keys.get(ck); ok {
			return v, nil
		}
	}
	st, err := diff.Stats(ctx, env, m.UniqueID, s, keys)
	if err == nil && len(keys) > 0 && st.Rows != nil {
		a.keys.put(ck, st)
	}
	return st, err
}

// counts counts both sides without a key; failures become step errors.
func (a *analysis) counts(ctx context.Context, env diff.Env, m *Model) (*diff.SideStats, *diff.SideStats) {
	var out [2]diff.SideStats
	for i, s := range []diff.Side{diff.Base, diff.Current} {
		st, err := a.stats(ctx, env, m, s, nil)
		if err != nil && ctx.Err() == nil {
			a.addError(StepError{Step: "row_count_diff", Model: m.Name, Message: err.Error()})
		}
		out[i] = st
	}
	return &out[0], &out[1]
}

// rowCount turns both sides' stats into the seed's row_count, reporting a
// relation that cannot be read as a step error.
func (a *analysis) rowCount(m *Model, b, c *diff.SideStats) *RowCount {
	r := &RowCount{Base: b.Rows, Current: c.Rows}
	if b.Meta.Status != diff.StatusOK {
		r.BaseStatus = b.Meta.Status
	}
	if c.Meta.Status != diff.StatusOK {
		r.CurrentStatus = c.Meta.Status
	}
	if b.Rows != nil && c.Rows != nil {
		delta := *c.Rows - *b.Rows
		r.Delta = &delta
		r.DeltaPct = DeltaPct(delta, *b.Rows)
	}
	for _, s := range []*diff.SideStats{c, b} {
		if s.Meta.Status == diff.StatusTableNotFound || s.Meta.Status == diff.StatusPermissionDenied {
			a.addError(StepError{Step: "row_count_diff", Model: m.Name, Message: s.Meta.Message})
			break
		}
	}
	return r
}

// skipReason says why a model gets no value diff, or "".
func (a *analysis) skipReason(m *Model, b, c *diff.SideStats) string {
	switch {
	case a.in.SkipValueDiff:
		return "skip_value_diff"
	case a.in.SkipDownstreamValueDiff && m.Classification == "downstream":
		return "skip_downstream_value_diff"
	case m.Materialized == "ephemeral":
		return "ephemeral model: it has no relation to compare"
	case b.Rows == nil || c.Rows == nil:
		return fmt.Sprintf("its rows could not be counted (base %s, current %s)", statusOr(b), statusOr(c))
	case len(m.PrimaryKey) == 0 && len(m.RejectedKeys) > 0:
		var parts []string
		for _, r := range m.RejectedKeys {
			parts = append(parts, fmt.Sprintf("%s (%s) %s", strings.Join(r.Columns, ", "), r.Source, r.Reason))
		}
		return "no verified key: " + strings.Join(parts, "; ")
	case len(m.PrimaryKey) == 0:
		return "no key: no primary_key constraint, unique_key, unique test, SQL grain, upstream key or id column (add a unique test)"
	}
	if limit := a.in.maxViewRows(); m.Materialized == "view" && limit >= 0 && max(*b.Rows, *c.Rows) > limit {
		return fmt.Sprintf("view with %d rows, over max_value_diff_rows %d (a view re-runs its query on every scan)", max(*b.Rows, *c.Rows), limit)
	}
	return ""
}

func statusOr(s *diff.SideStats) string {
	if s.Rows != nil {
		return "ok"
	}
	if s.Meta.Status == "" {
		return "unknown"
	}
	return s.Meta.Status
}

// valueDiff runs the key-joined value diff and reshapes it into per-column
// affected counts. Columns come from the catalogs; when the diff fails and
// the warehouse's columns differ from them, it runs again on live columns.
func (a *analysis) valueDiff(ctx context.Context, env diff.Env, m *Model) (*ValueDiff, error) {
	in := diff.ValueDiffInput{Model: m.UniqueID, PrimaryKey: m.PrimaryKey}
	vd, err := diff.ValueDiff(ctx, env, in)
	if err != nil && ctx.Err() == nil && diff.CatalogStale(ctx, env, m.UniqueID) {
		vd, err = diff.ValueDiff(ctx, diff.WithoutCatalogColumns(env), in)
	}
	if err != nil {
		return nil, err
	}
	sm := vd.Summary
	common := sm.Total - sm.Added - sm.Removed
	out := &ValueDiff{
		PrimaryKey: vd.PrimaryKey, RowsAdded: sm.Added, RowsRemoved: sm.Removed, RowsChanged: sm.Changed,
		AffectedRowCount: sm.Added + sm.Removed + sm.Changed, Columns: map[string]ColumnValueDiff{},
	}
	for _, c := range vd.Columns {
		out.Columns[c.Column] = ColumnValueDiff{AffectedRowCount: common - c.Matched, BaseMean: c.BaseMean, CurrentMean: c.CurrentMean}
	}
	return out, nil
}

func changedValueColumns(vd *ValueDiff) []string {
	cols := []string{}
	for c, v := range vd.Columns {
		if v.AffectedRowCount > 0 {
			cols = append(cols, c)
		}
	}
	sort.Strings(cols)
	return cols
}
