// Reach beyond models: which exposures, metrics, saved queries and semantic
// models read a changed column, and which unit tests cover a modified model.

package impact

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/lineage"
)

// Severities of reached nodes, in rank order: an exposure (a dashboard or
// app people use) outranks a metric, which outranks a saved query, which
// outranks a semantic model.
const (
	SeverityCritical = "critical" // exposure
	SeverityHigh     = "high"     // metric
	SeverityMedium   = "medium"   // saved query
	SeverityLow      = "low"      // semantic model
)

// Reach bases.
const (
	ReachColumnLineage = "column_lineage"
	ReachDAG           = "lineage_dag"
)

// Reached is one metric, saved query or semantic model a change reaches.
type Reached struct {
	Name     string   `json:"name" jsonschema:"name"`
	UniqueID string   `json:"unique_id" jsonschema:"dbt unique id"`
	Via      []string `json:"via" jsonschema:"changed columns reaching it (model.* = whole model)"`
	Severity string   `json:"severity" jsonschema:"critical, high, medium or low (exposure > metric > saved query > semantic model)"`
	Basis    string   `json:"basis" jsonschema:"column_lineage or lineage_dag (opaque SQL)"`
	Reads    []string `json:"reads,omitempty" jsonschema:"what of it the change reaches"`
	Type     string   `json:"type,omitempty" jsonschema:"metric or exposure type"`
	// Who to tell, for an exposure.
	Owner    string `json:"owner,omitempty" jsonschema:"exposures: owner name <email>"`
	URL      string `json:"url,omitempty" jsonschema:"exposures: url"`
	Maturity string `json:"maturity,omitempty" jsonschema:"exposures: maturity"`
}

// ReachedExposure is an exposure a change reaches: one type with the other
// reached nodes, so every list of them shares one schema.
type ReachedExposure = Reached

// UnitTestRun is one unit test of a modified model.
type UnitTestRun struct {
	Name     string `json:"name" jsonschema:"name"`
	UniqueID string `json:"unique_id" jsonschema:"dbt unique id"`
	Ran      bool   `json:"ran" jsonschema:"in run_results"`
	Status   string `json:"status,omitempty" jsonschema:"run_results status"`
	Passed   bool   `json:"passed" jsonschema:"ran and passed"`
	// ExpectColumns are the columns its expected rows check.
	ExpectColumns []string `json:"expect_columns" jsonschema:"columns it expects"`
}

// ModelUnitTests are the unit tests covering one modified model.
type ModelUnitTests struct {
	Model     string        `json:"model" jsonschema:"modified model"`
	UniqueID  string        `json:"unique_id" jsonschema:"dbt unique id"`
	UnitTests []UnitTestRun `json:"unit_tests" jsonschema:"its unit tests"`
	// Uncovered are changed columns no expected row checks.
	UncoveredChangedColumns []string `json:"uncovered_changed_columns" jsonschema:"changed columns no test expects"`
}

// Reach is what a change reaches beyond models. It is embedded in Result.
type Reach struct {
	ImpactedExposures              []ReachedExposure `json:"impacted_exposures" jsonschema:"reading an impacted model or metric"`
	ImpactedMetrics                []Reached         `json:"impacted_metrics" jsonschema:"metrics reading a changed column"`
	ImpactedSavedQueries           []Reached         `json:"impacted_saved_queries" jsonschema:"through an impacted metric or group-by"`
	ImpactedSemanticModels         []Reached         `json:"impacted_semantic_models" jsonschema:"whose elements read a changed column"`
	NotImpactedExposuresCount      int               `json:"not_impacted_exposures_count" jsonschema:"ruled out (downstream in the DAG)"`
	NotImpactedMetricsCount        int               `json:"not_impacted_metrics_count" jsonschema:"ruled out (downstream in the DAG)"`
	NotImpactedSavedQueriesCount   int               `json:"not_impacted_saved_queries_count" jsonschema:"ruled out (downstream in the DAG)"`
	NotImpactedSemanticModelsCount int               `json:"not_impacted_semantic_models_count" jsonschema:"ruled out (downstream in the DAG)"`
	UnitTests                      []ModelUnitTests  `json:"unit_tests" jsonschema:"unit tests per modified model"`
}

// colReach is what reaches one model's columns: per lower-cased column the
// changed columns (model.column) reaching it; all is set when every column
// counts (opaque SQL, no column lineage).
type colReach struct {
	cols map[string]map[string]bool
	all  map[string]bool
	dag  bool
}

func (c *colReach) add(col, root string) {
	if c.cols == nil {
		c.cols = map[string]map[string]bool{}
	}
	k := strings.ToLower(col)
	if c.cols[k] == nil {
		c.cols[k] = map[string]bool{}
	}
	c.cols[k][root] = true
}

// reads returns the roots reaching any of cols (rows: the row set).
func (c *colReach) reads(cols []string, rows bool) (roots map[string]bool, hit []string, dag bool) {
	roots = map[string]bool{}
	if c == nil {
		return roots, nil, false
	}
	if len(c.all) > 0 {
		for r := range c.all {
			roots[r] = true
		}
		return roots, cols, c.dag
	}
	if rows {
		cols = append(append([]string{}, cols...), "*")
	}
	for _, col := range cols {
		if rs := c.cols[strings.ToLower(col)]; len(rs) > 0 {
			hit = append(hit, col)
			for r := range rs {
				roots[r] = true
			}
		}
	}
	// A changed row set ("*") reaches every aggregate over the model.
	if rs := c.cols["*"]; len(rs) > 0 && !rows {
		for r := range rs {
			roots[r] = true
		}
	}
	return roots, hit, false
}

// ComputeReach fills res's Reach from the models it classified: the
// exposures, metrics, saved queries and semantic models of the current
// build that read a changed column, and the unit tests of modified models.
func ComputeReach(cmp *lineage.Comparison, l *Lineage, res *Result) {
	r := &res.Reach
	r.ImpactedExposures, r.ImpactedMetrics, r.ImpactedSavedQueries, r.ImpactedSemanticModels = []ReachedExposure{}, []Reached{}, []Reached{}, []Reached{}
	r.UnitTests = []ModelUnitTests{}
	if cmp == nil || cmp.Project == nil || cmp.Project.Current == nil {
		return
	}
	cur := cmp.Project.Current
	unit := unitTests(cur, res)
	*r = reachFrom(cur.Manifest, modelReach(cmp, l, res), dagDownstream(cmp, res))
	r.UnitTests = unit
}

// ColumnReach is the reach of changed columns of one model of the current
// build (column_impact): every changed column is followed downstream on its
// own, so via is exact; models column lineage cannot read count whole.
func ColumnReach(cmp *lineage.Comparison, pl *cll.ProjectLineage, id string, cols []string) Reach {
	name := nodeName(cmp, id)
	byModel := map[string]*colReach{id: {}}
	for _, c := range cols {
		label := name + "." + c
		byModel[id].add(c, label)
		for _, im := range pl.Impact([]cll.NodeColumn{{Node: id, Column: c}}).Models {
			if im.Node == id {
				continue
			}
			if byModel[im.Node] == nil {
				byModel[im.Node] = &colReach{}
			}
			if im.Opaque {
				cr := byModel[im.Node]
				if cr.all == nil {
					cr.all = map[string]bool{}
				}
				cr.all[label], cr.dag = true, true
				continue
			}
			for _, col := range im.Columns {
				byModel[im.Node].add(col, label)
			}
		}
	}
	r := reachFrom(cmp.Project.Current.Manifest, byModel, cmp.Graph.DescendantsOf(map[string]bool{id: true}, -1))
	r.UnitTests = []ModelUnitTests{}
	return r
}

// reachFrom finds the semantic-layer nodes and exposures of m reading the
// model columns in byModel; dagDown (the DAG descendants of the change)
// bounds the ruled-out counts.
func reachFrom(m *dbt.Manifest, byModel map[string]*colReach, dagDown map[string]bool) Reach {
	var r Reach

	// Semantic models, by name.
	sms := map[string]dbt.SemanticModelInfo{}
	smID := map[string]string{}
	for id, n := range m.SemanticModels {
		sms[n.Name] = n.SemanticModel()
		smID[n.Name] = id
	}
	element := func(sm string, kind, name string) (roots map[string]bool, hit []string, dag bool) {
		info, ok := sms[sm]
		if !ok {
			return nil, nil, false
		}
		el, ok := info.Element(kind, name)
		if !ok {
			return nil, nil, false
		}
		return byModel[info.Model].reads(el.Columns, el.Rows)
	}
	// dimension resolves "entity__dim" (or "dim", "entity") to the semantic
	// model defining it, preferring home.
	dimension := func(ref, home string) (roots map[string]bool, label string, dag bool) {
		parts := strings.Split(ref, "__")
		name := parts[len(parts)-1]
		names := sortedKeys(sms)
		if home != "" {
			names = append([]string{home}, names...)
		}
		for _, sm := range names {
			if _, ok := sms[sm].Element("", name); !ok {
				continue
			}
			if len(parts) > 1 && sm != home {
				if _, ok := sms[sm].Element("entity", parts[len(parts)-2]); !ok {
					continue
				}
			}
			roots, _, dag := element(sm, "", name)
			return roots, sm + "." + name, dag
		}
		return nil, "", false
	}

	smReached := map[string]*Reached{}
	for name, info := range sms {
		rr := &Reached{Name: name, UniqueID: smID[name], Severity: SeverityLow, Basis: ReachColumnLineage}
		roots := map[string]bool{}
		for _, el := range info.Elements {
			rs, _, dag := byModel[info.Model].reads(el.Columns, el.Rows)
			if len(rs) == 0 {
				continue
			}
			if dag {
				rr.Basis = ReachDAG
			}
			rr.Reads = append(rr.Reads, el.Kind+" "+el.Name)
			for k := range rs {
				roots[k] = true
			}
		}
		// A dbt 1.10+ simple metric aggregates a column of its semantic
		// model without a measure: that column is read too.
		for _, mn := range m.Metrics {
			mi := mn.Metric()
			if mi.SemanticModel != name {
				continue
			}
			if rs, _, dag := byModel[info.Model].reads(mi.Columns, mi.Rows); len(rs) > 0 {
				if dag {
					rr.Basis = ReachDAG
				}
				rr.Reads = append(rr.Reads, "metric "+mn.Name)
				for k := range rs {
					roots[k] = true
				}
			}
		}
		if len(roots) > 0 {
			sort.Strings(rr.Reads)
			rr.Via = sortedKeys(roots)
			smReached[name] = rr
		}
	}

	// Metrics, recursively through their inputs.
	metricByName := map[string]*dbt.Node{}
	for _, n := range m.Metrics {
		metricByName[n.Name] = n
	}
	metricReached := map[string]*Reached{}
	visiting := map[string]bool{}
	var metric func(name string) *Reached
	metric = func(name string) *Reached {
		if rr, ok := metricReached[name]; ok || visiting[name] {
			return rr
		}
		n, ok := metricByName[name]
		if !ok {
			return nil
		}
		visiting[name] = true
		info := n.Metric()
		rr := &Reached{Name: name, UniqueID: n.UniqueID, Severity: SeverityHigh, Basis: ReachColumnLineage, Type: info.Type}
		roots := map[string]bool{}
		take := func(rs map[string]bool, what string, dag bool) {
			if len(rs) == 0 {
				return
			}
			if dag {
				rr.Basis = ReachDAG
			}
			rr.Reads = append(rr.Reads, what)
			for k := range rs {
				roots[k] = true
			}
		}
		home := info.SemanticModel
		if home != "" {
			if sm, ok := sms[home]; ok {
				rs, hit, dag := byModel[sm.Model].reads(info.Columns, info.Rows)
				what := home + " rows"
				if len(hit) > 0 {
					what = home + "." + strings.Join(hit, ", "+home+".")
				}
				take(rs, what, dag)
				agg := info.AggTimeDimension
				if agg == "" {
					agg = sm.AggTimeDimension
				}
				if agg != "" {
					rs, _, dag := element(home, "dimension", agg)
					take(rs, "dimension "+home+"."+agg, dag)
				}
			}
		}
		// Measures live in the semantic models the metric depends on.
		for _, meas := range info.Measures {
			for _, dep := range n.DependsOn.Nodes {
				sn, ok := m.SemanticModels[dep]
				if !ok {
					continue
				}
				if home == "" {
					home = sn.Name
				}
				rs, _, dag := element(sn.Name, "measure", meas)
				take(rs, "measure "+sn.Name+"."+meas, dag)
			}
		}
		dims, mets := dbt.FilterRefs(info.Filters)
		for _, d := range dims {
			rs, label, dag := dimension(d, home)
			take(rs, "filter "+label, dag)
		}
		for _, in := range append(info.InputMetrics, mets...) {
			if im := metric(in); im != nil {
				take(setOf(im.Via), "metric "+in, im.Basis == ReachDAG)
			}
		}
		visiting[name] = false
		if len(roots) == 0 {
			metricReached[name] = nil
			return nil
		}
		rr.Via = sortedKeys(roots)
		metricReached[name] = rr
		return rr
	}
	for name := range metricByName {
		metric(name)
	}

	// Saved queries: through their metrics and group-by dimensions.
	sqReached := map[string]*Reached{}
	for _, n := range m.SavedQueries {
		info := n.SavedQuery()
		rr := &Reached{Name: n.Name, UniqueID: n.UniqueID, Severity: SeverityMedium, Basis: ReachColumnLineage}
		roots := map[string]bool{}
		take := func(rs map[string]bool, what string, dag bool) {
			if len(rs) == 0 {
				return
			}
			if dag {
				rr.Basis = ReachDAG
			}
			rr.Reads = append(rr.Reads, what)
			for k := range rs {
				roots[k] = true
			}
		}
		for _, mt := range info.Metrics {
			if im := metric(mt); im != nil {
				take(setOf(im.Via), "metric "+mt, im.Basis == ReachDAG)
			}
		}
		dims, _ := dbt.FilterRefs(append(append([]string{}, info.GroupBy...), info.Where...))
		for _, d := range dims {
			if d == "metric_time" || strings.HasPrefix(d, "metric_time__") {
				continue
			}
			rs, label, dag := dimension(d, "")
			take(rs, "group_by "+label, dag)
		}
		if len(roots) > 0 {
			rr.Via = sortedKeys(roots)
			sqReached[n.Name] = rr
		}
	}

	// Exposures: any impacted parent model or metric.
	expReached := map[string]*ReachedExposure{}
	for _, n := range m.Exposures {
		info := n.Exposure()
		rr := &ReachedExposure{Name: n.Name, UniqueID: n.UniqueID, Severity: SeverityCritical, Basis: ReachColumnLineage, Type: info.Type,
			URL: info.URL, Maturity: info.Maturity, Owner: strings.TrimSpace(info.OwnerName + " " + angle(info.OwnerEmail))}
		roots := map[string]bool{}
		for _, dep := range info.DependsOn {
			if mr, ok := byModel[dep]; ok {
				if mr.dag {
					rr.Basis = ReachDAG
				}
				rs := map[string]bool{}
				for k := range mr.all {
					rs[k] = true
				}
				for _, c := range mr.cols {
					for k := range c {
						rs[k] = true
					}
				}
				if len(rs) > 0 {
					rr.Reads = append(rr.Reads, "model "+manifestNodeName(m, dep))
					for k := range rs {
						roots[k] = true
					}
				}
				continue
			}
			if mn, ok := m.Metrics[dep]; ok {
				if im := metric(mn.Name); im != nil {
					if im.Basis == ReachDAG {
						rr.Basis = ReachDAG
					}
					rr.Reads = append(rr.Reads, "metric "+mn.Name)
					for _, k := range im.Via {
						roots[k] = true
					}
				}
			}
		}
		if len(roots) > 0 {
			rr.Via = sortedKeys(roots)
			expReached[n.Name] = rr
		}
	}

	// Ruled out: DAG descendants of a change that nothing reaches.
	count := func(section map[string]*dbt.Node, reached func(string) bool) int {
		c := 0
		for id, n := range section {
			if dagDown[id] && !reached(n.Name) {
				c++
			}
		}
		return c
	}
	r.NotImpactedSemanticModelsCount = count(m.SemanticModels, func(s string) bool { return smReached[s] != nil })
	r.NotImpactedMetricsCount = count(m.Metrics, func(s string) bool { return metricReached[s] != nil })
	r.NotImpactedSavedQueriesCount = count(m.SavedQueries, func(s string) bool { return sqReached[s] != nil })
	r.NotImpactedExposuresCount = count(m.Exposures, func(s string) bool { return expReached[s] != nil })
	r.ImpactedExposures = []ReachedExposure{}
	for _, name := range sortedKeys(expReached) {
		r.ImpactedExposures = append(r.ImpactedExposures, *expReached[name])
	}
	r.ImpactedMetrics = sortedReached(metricReached)
	r.ImpactedSavedQueries = sortedReached(sqReached)
	r.ImpactedSemanticModels = sortedReached(smReached)
	return r
}

func angle(email string) string {
	if email == "" {
		return ""
	}
	return "<" + email + ">"
}

func setOf(list []string) map[string]bool {
	s := make(map[string]bool, len(list))
	for _, x := range list {
		s[x] = true
	}
	return s
}

// manifestNodeName is a node's name in one build's manifest, or its id.
func manifestNodeName(m *dbt.Manifest, id string) string {
	if n, ok := m.Node(id); ok {
		return n.Name
	}
	return id
}

func sortedReached(m map[string]*Reached) []Reached {
	out := []Reached{}
	for _, name := range sortedKeys(m) {
		if m[name] != nil {
			out = append(out, *m[name])
		}
	}
	return out
}

// modelReach maps each impacted model to the changed columns reaching
// each of its columns. With column lineage, every changed column of a
// modified model is followed downstream on its own (so via is exact); a
// model lineage cannot read (opaque SQL, added or removed) counts whole,
// and so does every impacted model when there is no column lineage.
func modelReach(cmp *lineage.Comparison, l *Lineage, res *Result) map[string]*colReach {
	out := map[string]*colReach{}
	get := func(id string) *colReach {
		if out[id] == nil {
			out[id] = &colReach{}
		}
		return out[id]
	}
	whole := func(id string, roots []string) {
		c := get(id)
		if c.all == nil {
			c.all = map[string]bool{}
		}
		c.dag = true
		for _, r := range roots {
			c.all[r] = true
		}
	}
	useCLL := l != nil && res.ClassificationSource == "column_lineage"
	for _, mod := range res.ConfirmedImpactedModels {
		if mod.DataImpact == None {
			continue
		}
		if !useCLL {
			via := mod.ImpactedVia
			if len(via) == 0 {
				via = []string{mod.Name + ".*"}
			}
			whole(mod.UniqueID, via)
			continue
		}
		if mod.Classification != "modified" {
			if ml, ok := l.Current.Models[mod.UniqueID]; !ok || ml.Opaque {
				via := mod.ImpactedVia
				if len(via) == 0 {
					via = []string{mod.Name + ".*"}
				}
				whole(mod.UniqueID, via)
			}
			continue
		}
		var roots []cll.NodeColumn
		if mod.ChangeCategory == "unknown" || mod.CodeChangedColumns == nil {
			// Opaque or one-sided: every column of it may differ.
			whole(mod.UniqueID, []string{mod.Name + ".*"})
			if ml, ok := l.Current.Models[mod.UniqueID]; ok && !ml.Opaque {
				for _, c := range ml.Columns {
					roots = append(roots, cll.NodeColumn{Node: mod.UniqueID, Column: c.Name})
				}
			} else {
				for _, c := range columnsReadFrom(l.Current, mod.UniqueID) {
					roots = append(roots, cll.NodeColumn{Node: mod.UniqueID, Column: c})
				}
			}
			roots = append(roots, cll.NodeColumn{Node: mod.UniqueID, Column: "*"})
		} else {
			for _, c := range mod.CodeChangedColumns {
				roots = append(roots, cll.NodeColumn{Node: mod.UniqueID, Column: c})
				get(mod.UniqueID).add(c, mod.Name+"."+c)
			}
			if mod.RowSetChanged {
				roots = append(roots, cll.NodeColumn{Node: mod.UniqueID, Column: "*"})
				get(mod.UniqueID).add("*", mod.Name+".*")
			}
		}
		for _, root := range roots {
			label := mod.Name + "." + root.Column
			if c := out[mod.UniqueID]; c != nil && len(c.all) > 0 {
				label = mod.Name + ".*"
			}
			for _, im := range l.Current.Impact([]cll.NodeColumn{root}).Models {
				if im.Node == mod.UniqueID {
					continue
				}
				if im.Opaque {
					whole(im.Node, []string{label})
					continue
				}
				for _, c := range im.Columns {
					get(im.Node).add(c, label)
				}
			}
		}
	}
	// Models the analysis ruled out or verified unchanged reach nothing.
	keep := map[string]bool{}
	for _, mod := range res.ConfirmedImpactedModels {
		if mod.DataImpact != None {
			keep[mod.UniqueID] = true
		}
	}
	for id := range out {
		if !keep[id] {
			delete(out, id)
		}
	}
	return out
}

// dagDownstream is every node downstream of a modified one in the DAG.
func dagDownstream(cmp *lineage.Comparison, res *Result) map[string]bool {
	start := map[string]bool{}
	for _, mod := range res.ConfirmedImpactedModels {
		if mod.Classification == "modified" {
			start[mod.UniqueID] = true
		}
	}
	if len(start) == 0 {
		return map[string]bool{}
	}
	return cmp.Graph.DescendantsOf(start, -1)
}

// unitTests lists, per modified model, the unit tests that cover it.
func unitTests(cur *dbt.Env, res *Result) []ModelUnitTests {
	status := map[string]string{}
	if cur.RunResults != nil {
		for _, rr := range cur.RunResults.Results {
			status[rr.UniqueID] = rr.Status
		}
	}
	byModel := map[string][]*dbt.Node{}
	for _, n := range cur.Manifest.UnitTests {
		for _, dep := range n.DependsOn.Nodes {
			byModel[dep] = append(byModel[dep], n)
		}
	}
	out := []ModelUnitTests{}
	for _, mod := range res.ConfirmedImpactedModels {
		if mod.Classification != "modified" || mod.ResourceType != dbt.Model || isRemoved(mod) {
			continue
		}
		mt := ModelUnitTests{Model: mod.Name, UniqueID: mod.UniqueID, UnitTests: []UnitTestRun{}, UncoveredChangedColumns: []string{}}
		tests := byModel[mod.UniqueID]
		sort.Slice(tests, func(i, j int) bool { return tests[i].Name < tests[j].Name })
		covered := map[string]bool{}
		for _, n := range tests {
			info := n.UnitTest()
			st, ran := status[n.UniqueID]
			mt.UnitTests = append(mt.UnitTests, UnitTestRun{Name: n.Name, UniqueID: n.UniqueID, Ran: ran, Status: st,
				Passed: ran && st == "pass", ExpectColumns: nonNilStrings(info.ExpectColumns)})
			for _, c := range info.ExpectColumns {
				covered[strings.ToLower(c)] = true
			}
		}
		for _, c := range mod.CodeChangedColumns {
			if !covered[strings.ToLower(c)] {
				mt.UncoveredChangedColumns = append(mt.UncoveredChangedColumns, c)
			}
		}
		out = append(out, mt)
	}
	return out
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// maxWhoRows caps each list of the summary's "Who is affected".
const maxWhoRows = 20

// WhoIsAffected renders the summary's opening section: exposures first,
// then metrics, saved queries and semantic models, each with the changed
// columns reaching it; "" when the project has none downstream of the change.
func WhoIsAffected(r *Result) string {
	if r == nil {
		return ""
	}
	rr := r.Reach
	if len(rr.ImpactedExposures)+len(rr.ImpactedMetrics)+len(rr.ImpactedSavedQueries)+len(rr.ImpactedSemanticModels)+
		rr.NotImpactedExposuresCount+rr.NotImpactedMetricsCount+rr.NotImpactedSavedQueriesCount+rr.NotImpactedSemanticModelsCount == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Who is affected\n\n")
	section := func(title string, list []ReachedExposure, ruledOut int) {
		if len(list) == 0 && ruledOut == 0 {
			return
		}
		fmt.Fprintf(&b, "**%s**: %d impacted", title, len(list))
		if ruledOut > 0 {
			fmt.Fprintf(&b, ", %d ruled out by column lineage", ruledOut)
		}
		b.WriteString("\n\n")
		for i, x := range list {
			if i == maxWhoRows {
				fmt.Fprintf(&b, "- _%d more; run `ripple impact-analysis` for all of them._\n", len(list)-i)
				break
			}
			line := "- " + cell(x.Name)
			if x.Type != "" {
				line += " (" + cell(x.Type) + ")"
			}
			if x.Owner != "" {
				line += ", owner " + cell(x.Owner)
			}
			if x.URL != "" {
				line += ", " + cell(x.URL)
			}
			line += " ← " + cell(strings.Join(x.Via, ", "))
			if x.Basis == ReachDAG {
				line += " _(model lineage: column lineage cannot read a parent)_"
			}
			b.WriteString(line + "\n")
		}
		b.WriteString("\n")
	}
	section("Exposures", rr.ImpactedExposures, rr.NotImpactedExposuresCount)
	section("Metrics", rr.ImpactedMetrics, rr.NotImpactedMetricsCount)
	section("Saved queries", rr.ImpactedSavedQueries, rr.NotImpactedSavedQueriesCount)
	section("Semantic models", rr.ImpactedSemanticModels, rr.NotImpactedSemanticModelsCount)
	return b.String()
}
