package dbt

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// SemanticFields are the keys only exposures, metrics, semantic models,
// saved queries and unit tests carry. They stay raw at load (most projects
// have none, and their shapes vary across dbt versions); the accessors
// below (Node.Exposure, Node.Metric, ...) decode them on demand, and a
// malformed value reads as empty rather than failing the load.
type SemanticFields struct {
	Type         json.RawMessage `json:"type,omitempty"`
	Owner        json.RawMessage `json:"owner,omitempty"`
	Maturity     json.RawMessage `json:"maturity,omitempty"`
	URL          json.RawMessage `json:"url,omitempty"`
	Label        json.RawMessage `json:"label,omitempty"`
	TypeParams   json.RawMessage `json:"type_params,omitempty"`
	Filter       json.RawMessage `json:"filter,omitempty"`
	NodeRelation json.RawMessage `json:"node_relation,omitempty"`
	ModelRef     json.RawMessage `json:"model,omitempty"`
	Entities     json.RawMessage `json:"entities,omitempty"`
	Dimensions   json.RawMessage `json:"dimensions,omitempty"`
	Measures     json.RawMessage `json:"measures,omitempty"`
	Defaults     json.RawMessage `json:"defaults,omitempty"`
	QueryParams  json.RawMessage `json:"query_params,omitempty"`
	Given        json.RawMessage `json:"given,omitempty"`
	Expect       json.RawMessage `json:"expect,omitempty"`
}

// SemanticFieldKeys are the JSON keys of SemanticFields: a decoder that
// skips unknown keys must keep these for the semantic layer to be read.
var SemanticFieldKeys = []string{"type", "owner", "maturity", "url", "label", "type_params", "filter", "node_relation",
	"model", "entities", "dimensions", "measures", "defaults", "query_params", "given", "expect"}

func rawString(b json.RawMessage) string {
	var s string
	if len(b) == 0 || json.Unmarshal(b, &s) != nil {
		return ""
	}
	return s
}

func decodeRaw(b json.RawMessage, v any) {
	if len(b) > 0 {
		_ = json.Unmarshal(b, v)
	}
}

// ExposureInfo is an exposure (dashboard, notebook, application...).
type ExposureInfo struct {
	Type       string
	Maturity   string
	URL        string
	OwnerName  string
	OwnerEmail string
	// DependsOn are the models, sources and metrics it reads.
	DependsOn []string
}

// Exposure decodes an exposure's fields.
func (n *Node) Exposure() ExposureInfo {
	var owner struct {
		Name  *string `json:"name"`
		Email *string `json:"email"`
	}
	decodeRaw(n.Owner, &owner)
	e := ExposureInfo{Type: rawString(n.Type), Maturity: rawString(n.Maturity), URL: rawString(n.URL), DependsOn: n.DependsOn.Nodes}
	if owner.Name != nil {
		e.OwnerName = *owner.Name
	}
	if owner.Email != nil {
		e.OwnerEmail = *owner.Email
	}
	return e
}

// SemanticElement is an entity, dimension or measure of a semantic model.
type SemanticElement struct {
	Kind string // entity, dimension or measure
	Name string
	Expr string // "" when the element is its column
	// Columns are the model columns it reads (Expr's identifiers, or Name).
	Columns []string
	// Rows is set for an expression reading no column (count of rows).
	Rows bool
}

// SemanticModelInfo is a semantic model over one dbt model.
type SemanticModelInfo struct {
	// Model is the unique id of the model it describes ("" when unknown).
	Model            string
	Elements         []SemanticElement
	AggTimeDimension string
}

type rawElement struct {
	Name string  `json:"name"`
	Expr *string `json:"expr"`
}

// SemanticModel decodes a semantic model's fields.
func (n *Node) SemanticModel() SemanticModelInfo {
	var s SemanticModelInfo
	for _, d := range n.DependsOn.Nodes {
		if strings.HasPrefix(d, Model+".") {
			s.Model = d
			break
		}
	}
	var defaults struct {
		AggTime *string `json:"agg_time_dimension"`
	}
	decodeRaw(n.Defaults, &defaults)
	if defaults.AggTime != nil {
		s.AggTimeDimension = *defaults.AggTime
	}
	for _, part := range []struct {
		kind string
		raw  json.RawMessage
	}{{"entity", n.Entities}, {"dimension", n.Dimensions}, {"measure", n.Measures}} {
		var els []rawElement
		decodeRaw(part.raw, &els)
		for _, e := range els {
			el := SemanticElement{Kind: part.kind, Name: e.Name}
			if e.Expr != nil {
				el.Expr = *e.Expr
			}
			el.Columns, el.Rows = ExprColumns(el.Expr, e.Name)
			s.Elements = append(s.Elements, el)
		}
	}
	return s
}

// Element finds an element by name (case-insensitive) and kind ("" = any).
func (s SemanticModelInfo) Element(kind, name string) (SemanticElement, bool) {
	for _, e := range s.Elements {
		if (kind == "" || e.Kind == kind) && strings.EqualFold(e.Name, name) {
			return e, true
		}
	}
	return SemanticElement{}, false
}

// MetricInfo is a metric of the semantic layer.
type MetricInfo struct {
	Type string // simple, ratio, derived, cumulative or conversion
	// SemanticModel names the semantic model a dbt 1.10+ simple metric
	// aggregates (type_params.metric_aggregation_params).
	SemanticModel string
	// Columns are the columns of SemanticModel the metric aggregates (its
	// expr, else its name); Rows is set when the expr reads no column.
	Columns []string
	Rows    bool
	// AggTimeDimension is the time dimension it aggregates over.
	AggTimeDimension string
	// Measures are the semantic-model measures it reads (older specs).
	Measures []string
	// InputMetrics are the metrics it is computed from.
	InputMetrics []string
	// Filters are where-SQL templates ({{ Dimension('entity__dim') }} ...).
	Filters []string
}

type rawFilter struct {
	WhereFilters []struct {
		SQL string `json:"where_sql_template"`
	} `json:"where_filters"`
}

func (f *rawFilter) templates() []string {
	if f == nil {
		return nil
	}
	out := []string{}
	for _, w := range f.WhereFilters {
		out = append(out, w.SQL)
	}
	return out
}

type rawInput struct {
	Name   string     `json:"name"`
	Filter *rawFilter `json:"filter"`
}

// Metric decodes a metric's fields.
func (n *Node) Metric() MetricInfo {
	m := MetricInfo{Type: rawString(n.Type)}
	var f *rawFilter
	decodeRaw(n.Filter, &f)
	m.Filters = append(m.Filters, f.templates()...)
	var tp struct {
		Measure       *rawInput  `json:"measure"`
		InputMeasures []rawInput `json:"input_measures"`
		Numerator     *rawInput  `json:"numerator"`
		Denominator   *rawInput  `json:"denominator"`
		Expr          *string    `json:"expr"`
		Metrics       []rawInput `json:"metrics"`
		Conversion    *struct {
			BaseMeasure       *rawInput `json:"base_measure"`
			ConversionMeasure *rawInput `json:"conversion_measure"`
			BaseMetric        *rawInput `json:"base_metric"`
			ConversionMetric  *rawInput `json:"conversion_metric"`
		} `json:"conversion_type_params"`
		Cumulative *struct {
			Metric *rawInput `json:"metric"`
		} `json:"cumulative_type_params"`
		Aggregation *struct {
			SemanticModel string  `json:"semantic_model"`
			AggTime       *string `json:"agg_time_dimension"`
		} `json:"metric_aggregation_params"`
	}
	decodeRaw(n.TypeParams, &tp)
	measure := func(in *rawInput) {
		if in == nil || in.Name == "" {
			return
		}
		if !contains(m.Measures, in.Name) {
			m.Measures = append(m.Measures, in.Name)
		}
		m.Filters = append(m.Filters, in.Filter.templates()...)
	}
	metric := func(in *rawInput) {
		if in == nil || in.Name == "" {
			return
		}
		if !contains(m.InputMetrics, in.Name) {
			m.InputMetrics = append(m.InputMetrics, in.Name)
		}
		m.Filters = append(m.Filters, in.Filter.templates()...)
	}
	measure(tp.Measure)
	for i := range tp.InputMeasures {
		measure(&tp.InputMeasures[i])
	}
	if tp.Conversion != nil {
		measure(tp.Conversion.BaseMeasure)
		measure(tp.Conversion.ConversionMeasure)
		metric(tp.Conversion.BaseMetric)
		metric(tp.Conversion.ConversionMetric)
	}
	if tp.Aggregation != nil && tp.Aggregation.SemanticModel != "" {
		m.SemanticModel = tp.Aggregation.SemanticModel
		expr := ""
		if tp.Expr != nil {
			expr = *tp.Expr
		}
		m.Columns, m.Rows = ExprColumns(expr, n.Name)
		if tp.Aggregation.AggTime != nil {
			m.AggTimeDimension = *tp.Aggregation.AggTime
		}
	}
	switch m.Type {
	case "ratio":
		metric(tp.Numerator)
		metric(tp.Denominator)
	case "derived":
		for i := range tp.Metrics {
			metric(&tp.Metrics[i])
		}
	case "cumulative":
		if tp.Cumulative != nil {
			metric(tp.Cumulative.Metric)
		}
	}
	return m
}

// SavedQueryInfo is a saved query of the semantic layer.
type SavedQueryInfo struct {
	Metrics []string
	// GroupBy are templates such as Entity('customer') or
	// TimeDimension('metric_time', 'day').
	GroupBy []string
	Where   []string
}

// SavedQuery decodes a saved query's fields.
func (n *Node) SavedQuery() SavedQueryInfo {
	var qp struct {
		Metrics []string   `json:"metrics"`
		GroupBy []string   `json:"group_by"`
		Where   *rawFilter `json:"where"`
	}
	decodeRaw(n.QueryParams, &qp)
	return SavedQueryInfo{Metrics: qp.Metrics, GroupBy: qp.GroupBy, Where: qp.Where.templates()}
}

// UnitTestInfo is a dbt unit test.
type UnitTestInfo struct {
	// Model is the name of the model under test.
	Model string
	// Given are the inputs it mocks (ref(...) or source(...)).
	Given []string
	// ExpectColumns are the columns its expected rows name (sorted);
	// ExpectRows counts the rows (dict and csv formats).
	ExpectColumns []string
	ExpectRows    int
}

// UnitTest decodes a unit test's fields.
func (n *Node) UnitTest() UnitTestInfo {
	u := UnitTestInfo{Model: rawString(n.ModelRef)}
	var given []struct {
		Input string `json:"input"`
	}
	decodeRaw(n.Given, &given)
	for _, g := range given {
		u.Given = append(u.Given, g.Input)
	}
	var expect struct {
		Rows   json.RawMessage `json:"rows"`
		Format string          `json:"format"`
	}
	decodeRaw(n.Expect, &expect)
	cols := map[string]bool{}
	var rows []map[string]json.RawMessage
	if json.Unmarshal(expect.Rows, &rows) == nil {
		u.ExpectRows = len(rows)
		for _, r := range rows {
			for c := range r {
				cols[c] = true
			}
		}
	} else if s := rawString(expect.Rows); s != "" && (expect.Format == "csv" || expect.Format == "") {
		// csv: the first line names the columns.
		lines := strings.Split(strings.TrimSpace(s), "\n")
		for _, c := range strings.Split(lines[0], ",") {
			if c = strings.TrimSpace(c); c != "" {
				cols[c] = true
			}
		}
		u.ExpectRows = len(lines) - 1
	}
	for c := range cols {
		u.ExpectColumns = append(u.ExpectColumns, c)
	}
	sort.Strings(u.ExpectColumns)
	return u
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var identRe = regexp.MustCompile(`"[^"]+"|[A-Za-z_][A-Za-z0-9_$]*(\s*\()?|'(?:[^']|'')*'`)

// sqlWords are keywords and literals that are not columns in an expr.
var sqlWords = map[string]bool{"case": true, "when": true, "then": true, "else": true, "end": true, "and": true, "or": true,
	"not": true, "null": true, "true": true, "false": true, "is": true, "in": true, "as": true, "between": true, "like": true,
	"ilike": true, "distinct": true, "interval": true, "date": true, "timestamp": true, "over": true, "partition": true,
	"by": true, "order": true, "asc": true, "desc": true, "filter": true, "where": true, "cast": true, "extract": true,
	"from": true, "day": true, "month": true, "year": true, "week": true, "hour": true, "minute": true, "second": true,
	"quarter": true, "int": true, "integer": true, "bigint": true, "float": true, "double": true, "numeric": true,
	"decimal": true, "varchar": true, "text": true, "string": true, "boolean": true}

// ExprColumns lists the columns a semantic-layer expr reads: its
// identifiers (function names, keywords and literals left out), or name
// when expr is empty. rows is set when a non-empty expr reads no column
// (expr: 1 counts rows).
func ExprColumns(expr, name string) (cols []string, rows bool) {
	if strings.TrimSpace(expr) == "" {
		return []string{name}, false
	}
	seen := map[string]bool{}
	for _, tok := range identRe.FindAllString(expr, -1) {
		switch {
		case strings.HasPrefix(tok, "'"), strings.HasSuffix(tok, "("):
			continue
		case strings.HasPrefix(tok, `"`):
			tok = strings.Trim(tok, `"`)
		case sqlWords[strings.ToLower(tok)]:
			continue
		}
		if !seen[strings.ToLower(tok)] {
			seen[strings.ToLower(tok)] = true
			cols = append(cols, tok)
		}
	}
	return cols, len(cols) == 0
}

var (
	dimRefRe    = regexp.MustCompile(`(?:TimeDimension|Dimension|Entity)\(\s*['"]([^'"]+)['"]`)
	metricRefRe = regexp.MustCompile(`Metric\(\s*['"]([^'"]+)['"]`)
)

// FilterRefs lists the dimension or entity references ("entity__dim",
// "customer") of where templates or group-by items, and the metrics
// ({{ Metric('m', ...) }}) they filter on.
func FilterRefs(templates []string) (dims, metrics []string) {
	for _, t := range templates {
		for _, m := range dimRefRe.FindAllStringSubmatch(t, -1) {
			dims = append(dims, m[1])
		}
		for _, m := range metricRefRe.FindAllStringSubmatch(t, -1) {
			metrics = append(metrics, m[1])
		}
	}
	return dims, metrics
}
