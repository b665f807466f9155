package static

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// CompareObservedInput names a run-time column lineage export.
type CompareObservedInput struct {
	ObservedFile string `json:"observed_file" jsonschema:"path to a CSV or JSON export of run-time column lineage, one row per edge: source_table, source_column, target_table, target_column (Unity Catalog system.access.column_lineage names such as source_table_full_name are accepted, as are source/target written table.column)"`
	Limit        int    `json:"limit,omitempty" jsonschema:"maximum missed and extra edges listed per model (default 20, max 500)"`
}

// ObservedEdge is one column lineage edge, written entity.column.
type ObservedEdge struct {
	SourceTable  string `json:"source_table"`
	SourceColumn string `json:"source_column"`
	TargetTable  string `json:"target_table"`
	TargetColumn string `json:"target_column"`
}

// ModelAgreement compares the edges into one model.
type ModelAgreement struct {
	Model    string `json:"model" jsonschema:"model name"`
	UniqueID string `json:"unique_id" jsonschema:"unique id"`
	Static   int    `json:"static" jsonschema:"edges in static lineage"`
	Observed int    `json:"observed" jsonschema:"edges observed at run time"`
	Both     int    `json:"both" jsonschema:"edges in both"`
	// Precision is Both/Static, Recall is Both/Observed (1 when the denominator is 0).
	Precision float64 `json:"precision" jsonschema:"both / static"`
	Recall    float64 `json:"recall" jsonschema:"both / observed"`
	// Missed are observed edges static lineage lacks; Extra are static edges not observed.
	Missed []string `json:"missed,omitempty" jsonschema:"observed edges static lineage lacks"`
	Extra  []string `json:"extra,omitempty" jsonschema:"static edges not observed"`
	Note   string   `json:"note,omitempty" jsonschema:"caveat"`
}

// CompareObservedResult is static column lineage against an observed export.
type CompareObservedResult struct {
	ObservedRows     int              `json:"observed_rows" jsonschema:"rows read from the file"`
	Compared         int              `json:"compared" jsonschema:"edges compared"`
	Unresolved       int              `json:"unresolved" jsonschema:"edges whose tables are not in the project"`
	UnresolvedTables []string         `json:"unresolved_tables,omitempty" jsonschema:"those tables"`
	Models           []ModelAgreement `json:"models" jsonschema:"agreement per model"`
	Static           int              `json:"static" jsonschema:"static edges in total"`
	Observed         int              `json:"observed" jsonschema:"observed edges in total"`
	Both             int              `json:"both" jsonschema:"edges in both in total"`
	Precision        float64          `json:"precision" jsonschema:"both / static overall"`
	Recall           float64          `json:"recall" jsonschema:"both / observed overall"`
	Note             string           `json:"note" jsonschema:"how to read it"`
}

// CompareObserved compares static column lineage (through the Lineage
// dependency) with a run-time lineage export, per model.
func CompareObserved(ctx context.Context, p *Project, in CompareObservedInput) (*CompareObservedResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.lin == nil {
		return nil, fmt.Errorf("%w: compare_observed compares static column lineage with the export; run it where column lineage is enabled", ErrNoLineage)
	}
	if in.ObservedFile == "" {
		return nil, fmt.Errorf("compare_observed needs observed_file: a CSV or JSON export of run-time column lineage")
	}
	data, err := readInputFile(in.ObservedFile, p.fileRoots, MaxInputFileBytes)
	if err != nil {
		return nil, fmt.Errorf("reading the observed lineage file: %w", err)
	}
	edges, err := ParseObserved(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.ObservedFile, err)
	}
	return p.compareObserved(ctx, edges, clampLimit(in.Limit, 20, 500))
}

// MaxInputFileBytes caps a file input (an observed lineage export).
const MaxInputFileBytes = 64 << 20

// readInputFile reads a file an operation was pointed at: a regular file
// (no device such as /dev/zero, no FIFO, no /proc/self/fd/0, which would
// read forever, block forever or swallow the stdio session's input), inside
// one of roots when there are any (relative paths are taken from the first,
// the project directory), of at most max bytes.
func readInputFile(path string, roots []string, max int64) ([]byte, error) {
	if !filepath.IsAbs(path) && len(roots) > 0 {
		path = filepath.Join(roots[0], path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	if len(roots) > 0 && !under(real, roots) {
		return nil, fmt.Errorf("%s is outside the project directory %s: pass a file inside it, or allow its directory with --allow-dir", path, roots[0])
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); pass the path of an exported CSV or JSON file", path, fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s has %d bytes, more than the %d bytes an input file may have", path, fi.Size(), max)
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file checked must be the file opened (no swap in between), and
	// its size may not grow past the cap while it is read.
	if ofi, err := f.Stat(); err != nil || !os.SameFile(fi, ofi) {
		return nil, fmt.Errorf("%s changed while it was opened; try again", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s has more than the %d bytes an input file may have", path, max)
	}
	return data, nil
}

// under reports whether path is inside one of the directories (symbolic
// links resolved). Both sides are made absolute first: a relative
// --project-dir and an absolute path into it name the same place.
func under(path string, roots []string) bool {
	path, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for _, r := range roots {
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		if rr, err = filepath.Abs(rr); err != nil {
			continue
		}
		if rel, err := filepath.Rel(rr, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func (p *Project) compareObserved(ctx context.Context, edges []ObservedEdge, limit int) (*CompareObservedResult, error) {
	res := &CompareObservedResult{ObservedRows: len(edges), Models: []ModelAgreement{},
		Note: "Observed lineage covers only what ran; edges from code paths that did not run are reported as extra."}
	p.misc()
	rel := p.relIdx
	observed := map[string]map[edgeKey]bool{} // target id → edge set
	unresolved := map[string]bool{}
	memo := map[string]*entity{}
	lookup := func(name string) *entity {
		e, ok := memo[name]
		if !ok {
			e = rel.lookup(name)
			memo[name] = e
		}
		return e
	}
	for _, ed := range edges {
		src, dst := lookup(ed.SourceTable), lookup(ed.TargetTable)
		if src == nil {
			unresolved[ed.SourceTable] = true
		}
		if dst == nil {
			unresolved[ed.TargetTable] = true
		}
		if src == nil || dst == nil {
			res.Unresolved++
			continue
		}
		if observed[dst.id] == nil {
			observed[dst.id] = map[edgeKey]bool{}
		}
		observed[dst.id][edgeKey{src, strings.ToLower(ed.SourceColumn), strings.ToLower(ed.TargetColumn)}] = true
	}
	for t := range unresolved {
		res.UnresolvedTables = append(res.UnresolvedTables, t)
	}
	sort.Strings(res.UnresolvedTables)
	if len(res.UnresolvedTables) > 20 {
		res.UnresolvedTables = res.UnresolvedTables[:20]
	}
	targets := make([]string, 0, len(observed))
	for id := range observed {
		targets = append(targets, id)
	}
	sort.Slice(targets, func(i, j int) bool { return p.byID[targets[i]].name < p.byID[targets[j]].name })
	for _, id := range targets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := p.byID[id]
		obs := observed[id]
		ma := ModelAgreement{Model: e.name, UniqueID: id, Observed: len(obs)}
		cols, ok := p.lin.ModelColumns(id)
		if !ok {
			ma.Note = "no static column lineage (opaque or not analyzed)"
		}
		// Static edges, deduplicated per output column (few inputs each).
		var extra, static []edgeKey
		for _, c := range cols {
			dc := strings.ToLower(c.Column)
			first := len(static)
			for _, in := range c.Inputs {
				src := p.byID[in.Node]
				if src == nil {
					continue
				}
				k := edgeKey{src, strings.ToLower(in.Column), dc}
				dup := false
				for _, prev := range static[first:] {
					if prev == k {
						dup = true
						break
					}
				}
				if dup {
					continue
				}
				static = append(static, k)
				if obs[k] {
					ma.Both++
				} else {
					extra = append(extra, k)
				}
			}
		}
		ma.Static = len(static)
		var missed []edgeKey
		for k := range obs {
			found := false
			for _, s := range static {
				if s == k {
					found = true
					break
				}
			}
			if !found {
				missed = append(missed, k)
			}
		}
		ma.Missed, ma.Extra = edgeStrings(missed, e, limit), edgeStrings(extra, e, limit)
		ma.Precision, ma.Recall = ratio(ma.Both, ma.Static), ratio(ma.Both, ma.Observed)
		res.Static += ma.Static
		res.Observed += ma.Observed
		res.Both += ma.Both
		res.Compared += ma.Observed
		res.Models = append(res.Models, ma)
	}
	res.Precision, res.Recall = ratio(res.Both, res.Static), ratio(res.Both, res.Observed)
	return res, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(int(10000*float64(a)/float64(b)+0.5)) / 10000
}

// edgeKey is a column edge into a known target model.
type edgeKey struct {
	src            *entity
	srcCol, dstCol string // lower-case
}

// edgeStrings sorts edges and renders the first limit of them.
func edgeStrings(ks []edgeKey, dst *entity, limit int) []string {
	sort.Slice(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.src.name != b.src.name {
			return a.src.name < b.src.name
		}
		if a.srcCol != b.srcCol {
			return a.srcCol < b.srcCol
		}
		return a.dstCol < b.dstCol
	})
	if len(ks) > limit {
		ks = ks[:limit]
	}
	var out []string
	for _, k := range ks {
		out = append(out, k.String(dst))
	}
	return out
}

func (k edgeKey) String(dst *entity) string {
	return k.src.name + "." + k.srcCol + " -> " + dst.name + "." + k.dstCol
}

type relIndex map[string][]*entity

// relationIndex maps lower-case relation names (database.schema.table,
// schema.table and table) to entities.
func (p *Project) relationIndex() relIndex {
	idx := relIndex{}
	for _, e := range p.entities {
		parts := relParts(e.node.RelationName)
		if len(parts) == 0 {
			parts = relParts(e.node.Database + "." + e.node.Schema + "." + e.node.RelationIdentifier())
		}
		for i := range parts {
			k := strings.ToLower(strings.Join(parts[i:], "."))
			idx[k] = append(idx[k], e)
		}
	}
	return idx
}

func (r relIndex) lookup(name string) *entity {
	k := strings.ToLower(strings.Join(relParts(name), "."))
	if es := r[k]; len(es) == 1 {
		return es[0]
	}
	return nil
}

// ParseObserved reads a run-time column lineage export: a CSV with a
// header, or JSON (an array of objects, or an object holding one under
// rows, edges, lineage or data).
func ParseObserved(data []byte) ([]ObservedEdge, error) {
	trim := bytes.TrimSpace(data)
	if len(trim) == 0 {
		return nil, errors.New("the observed lineage file is empty")
	}
	var rows []map[string]string
	if trim[0] == '[' || trim[0] == '{' {
		var raw any
		if err := json.Unmarshal(trim, &raw); err != nil {
			return nil, fmt.Errorf("observed lineage is not valid JSON: %w", err)
		}
		if obj, ok := raw.(map[string]any); ok {
			for _, k := range []string{"rows", "edges", "lineage", "data"} {
				if v, ok := obj[k]; ok {
					raw = v
					break
				}
			}
		}
		list, ok := raw.([]any)
		if !ok {
			return nil, errors.New("observed lineage JSON must be an array of edge objects")
		}
		for _, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			row := map[string]string{}
			for k, v := range m {
				if s, ok := v.(string); ok {
					row[strings.ToLower(k)] = s
				}
			}
			rows = append(rows, row)
		}
	} else {
		r := csv.NewReader(bytes.NewReader(trim))
		r.FieldsPerRecord = -1
		header, err := r.Read()
		if err != nil {
			return nil, fmt.Errorf("observed lineage CSV has no header: %w", err)
		}
		for i := range header {
			header[i] = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff")))
		}
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("observed lineage CSV: %w", err)
			}
			row := map[string]string{}
			for i, v := range rec {
				if i < len(header) {
					row[header[i]] = strings.TrimSpace(v)
				}
			}
			rows = append(rows, row)
		}
	}
	var out []ObservedEdge
	for _, row := range rows {
		st, sc := pick(row, "source_table_full_name", "source_table_name", "source_table"), pick(row, "source_column_name", "source_column")
		tt, tc := pick(row, "target_table_full_name", "target_table_name", "target_table"), pick(row, "target_column_name", "target_column")
		if sc == "" {
			st, sc = splitLast(pick(row, "source"))
		}
		if tc == "" {
			tt, tc = splitLast(pick(row, "target"))
		}
		if st == "" || sc == "" || tt == "" || tc == "" {
			continue
		}
		out = append(out, ObservedEdge{SourceTable: st, SourceColumn: sc, TargetTable: tt, TargetColumn: tc})
	}
	if len(out) == 0 && len(rows) > 0 {
		return nil, errors.New("no observed edge found: name the columns source_table, source_column, target_table, target_column (or source/target as table.column)")
	}
	return out, nil
}

func pick(row map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := row[k]; v != "" {
			return v
		}
	}
	return ""
}

func splitLast(s string) (string, string) {
	i := strings.LastIndexByte(s, '.')
	if i <= 0 {
		return "", ""
	}
	return s[:i], s[i+1:]
}

// OpenLineageInput selects the models to export.
type OpenLineageInput struct {
	Models    []string `json:"models,omitempty" jsonschema:"models to export (names or unique ids); empty means every model with column lineage"`
	Namespace string   `json:"namespace,omitempty" jsonschema:"OpenLineage dataset namespace (default: the adapter type, e.g. duckdb)"`
}

// OLInputField is an input of a column lineage field.
type OLInputField struct {
	Namespace       string             `json:"namespace" jsonschema:"dataset namespace"`
	Name            string             `json:"name" jsonschema:"dataset name"`
	Field           string             `json:"field" jsonschema:"column"`
	Transformations []OLTransformation `json:"transformations,omitempty" jsonschema:"how the column is used"`
}

// OLTransformation is an OpenLineage column transformation.
type OLTransformation struct {
	Type    string `json:"type" jsonschema:"DIRECT or INDIRECT"`
	Subtype string `json:"subtype,omitempty" jsonschema:"IDENTITY, TRANSFORMATION, AGGREGATION, JOIN, FILTER, GROUP_BY, SORT, WINDOW or CONDITIONAL"`
}

// OLField holds the inputs of one output column.
type OLField struct {
	InputFields []OLInputField `json:"inputFields" jsonschema:"the columns it is computed from"`
}

// OLColumnLineage is the ColumnLineageDatasetFacet.
type OLColumnLineage struct {
	Producer  string             `json:"_producer" jsonschema:"producer URI"`
	SchemaURL string             `json:"_schemaURL" jsonschema:"facet schema URL"`
	Fields    map[string]OLField `json:"fields" jsonschema:"output column to its inputs"`
	Dataset   []OLInputField     `json:"dataset,omitempty" jsonschema:"columns shaping the whole dataset (joins, filters)"`
}

// OLDataset is an OpenLineage dataset.
type OLDataset struct {
	Namespace string                     `json:"namespace" jsonschema:"dataset namespace"`
	Name      string                     `json:"name" jsonschema:"dataset name"`
	Facets    map[string]OLColumnLineage `json:"facets,omitempty" jsonschema:"dataset facets (columnLineage)"`
}

// OLJob names the job of an event.
type OLJob struct {
	Namespace string `json:"namespace" jsonschema:"job namespace"`
	Name      string `json:"name" jsonschema:"job name"`
}

// OLEvent is a static OpenLineage JobEvent for one model.
type OLEvent struct {
	EventTime string      `json:"eventTime" jsonschema:"event time (RFC 3339)"`
	Producer  string      `json:"producer" jsonschema:"producer URI"`
	SchemaURL string      `json:"schemaURL" jsonschema:"OpenLineage schema URL"`
	Job       OLJob       `json:"job" jsonschema:"the dbt model as a job"`
	Inputs    []OLDataset `json:"inputs" jsonschema:"upstream datasets"`
	Outputs   []OLDataset `json:"outputs" jsonschema:"the model's dataset with its column lineage"`
}

// OpenLineageResult holds one event per exported model.
type OpenLineageResult struct {
	Events []OLEvent `json:"events" jsonschema:"one OpenLineage event per model"`
	// TableOnly lists models exported without column lineage (opaque).
	TableOnly []OpaqueNode `json:"table_only,omitempty" jsonschema:"models exported without column lineage (opaque), with why"`
}

const (
	olProducer       = "https://github.com/ripple-data/ripple"
	olJobEventSchema = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent"
	olColumnFacet    = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
)

// OpenLineage exports column lineage as OpenLineage ColumnLineageDatasetFacet
// JSON: direct inputs go in fields, row-shaping inputs in dataset. Opaque
// models get table lineage only.
func OpenLineage(ctx context.Context, p *Project, in OpenLineageInput) (*OpenLineageResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.lin == nil {
		return nil, fmt.Errorf("%w: the OpenLineage export needs column lineage; run it where column lineage is enabled", ErrNoLineage)
	}
	ns := in.Namespace
	if ns == "" {
		ns = p.env.Manifest.Metadata.AdapterType
		if ns == "" {
			ns = "dbt"
		}
	}
	var models []*entity
	if len(in.Models) > 0 {
		for _, name := range in.Models {
			e, err := p.resolve(name)
			if err != nil {
				return nil, err
			}
			models = append(models, e)
		}
	} else {
		// The whole-project export is built once per namespace and shared.
		p.olMu.Lock()
		defer p.olMu.Unlock()
		if r := p.olCache[ns]; r != nil {
			return &OpenLineageResult{Events: append([]OLEvent{}, r.Events...), TableOnly: append([]OpaqueNode(nil), r.TableOnly...)}, nil
		}
		for _, e := range p.entities {
			if e.kind == dbt.Model {
				models = append(models, e)
			}
		}
		res := p.openLineage(ns, models)
		if p.olCache == nil {
			p.olCache = map[string]*OpenLineageResult{}
		}
		p.olCache[ns] = res
		return &OpenLineageResult{Events: append([]OLEvent{}, res.Events...), TableOnly: append([]OpaqueNode(nil), res.TableOnly...)}, nil
	}
	return p.openLineage(ns, models), nil
}

func (p *Project) openLineage(ns string, models []*entity) *OpenLineageResult {
	reasons := map[string]string{}
	for _, o := range p.lin.Opaque() {
		reasons[o.Node] = o.Reason
	}
	res := &OpenLineageResult{Events: []OLEvent{}}
	eventTime := p.env.Manifest.Metadata.GeneratedAt
	for _, e := range models {
		ev := OLEvent{EventTime: eventTime, Producer: olProducer, SchemaURL: olJobEventSchema,
			Job: OLJob{Namespace: ns, Name: e.id}, Inputs: []OLDataset{}}
		for _, dep := range e.node.DependsOn.Nodes {
			if d := p.byID[dep]; d != nil {
				ev.Inputs = append(ev.Inputs, OLDataset{Namespace: ns, Name: d.dataset})
			}
		}
		out := OLDataset{Namespace: ns, Name: e.dataset}
		cols, ok := p.lin.ModelColumns(e.id)
		if !ok {
			r := reasons[e.id]
			if r == "" {
				r = "no column lineage"
			}
			res.TableOnly = append(res.TableOnly, OpaqueNode{Node: e.id, Reason: r})
		} else {
			facet := OLColumnLineage{Producer: olProducer, SchemaURL: olColumnFacet, Fields: make(map[string]OLField, len(cols))}
			for _, c := range cols {
				f := OLField{InputFields: make([]OLInputField, 0, len(c.Inputs))}
				tr := directTransformations[olSubtype(c.Transformation)]
				for _, in := range c.Inputs {
					d := p.byID[in.Node]
					if d == nil {
						continue
					}
					f.InputFields = append(f.InputFields, OLInputField{Namespace: ns, Name: d.dataset, Field: in.Column, Transformations: tr})
				}
				facet.Fields[c.Column] = f
			}
			for _, ri := range p.lin.RowInputs(e.id) {
				d := p.byID[ri.Column.Node]
				if d == nil {
					continue
				}
				facet.Dataset = append(facet.Dataset, OLInputField{Namespace: ns, Name: d.dataset, Field: ri.Column.Column,
					Transformations: []OLTransformation{{Type: "INDIRECT", Subtype: indirectSubtype(ri.Kind)}}})
			}
			out.Facets = map[string]OLColumnLineage{"columnLineage": facet}
		}
		ev.Outputs = []OLDataset{out}
		res.Events = append(res.Events, ev)
	}
	return res
}

// directTransformations are shared, read-only transformation lists.
var directTransformations = map[string][]OLTransformation{
	"IDENTITY":       {{Type: "DIRECT", Subtype: "IDENTITY"}},
	"TRANSFORMATION": {{Type: "DIRECT", Subtype: "TRANSFORMATION"}},
	"AGGREGATION":    {{Type: "DIRECT", Subtype: "AGGREGATION"}},
}

// indirectSubtype maps a row-input kind to an OpenLineage INDIRECT subtype
// ("" when the clause is not known).
func indirectSubtype(kind string) string {
	switch k := strings.ToUpper(kind); k {
	case "JOIN", "FILTER", "GROUP_BY", "SORT", "WINDOW", "CONDITIONAL":
		return k
	}
	return ""
}

func olSubtype(t string) string {
	switch strings.ToLower(t) {
	case "identity":
		return "IDENTITY"
	case "aggregation":
		return "AGGREGATION"
	}
	return "TRANSFORMATION"
}

// datasetName is database.schema.identifier without quotes.
func datasetName(e *entity) string {
	var parts []string
	for _, s := range []string{e.node.Database, e.node.Schema, e.node.RelationIdentifier()} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ".")
}
