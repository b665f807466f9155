// Package synth generates large, realistic dbt projects for benchmarks: a
// base and a current manifest (v12) plus catalogs, with layered models
// (staging → intermediate → marts), realistic fan-in, ~20 columns per model
// and CTE-heavy compiled SQL. Output is deterministic for a given seed.
package synth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Options shape the project.
type Options struct {
	Models  int     // number of models (default 5000)
	Columns int     // columns per model (default 20)
	Seed    uint64  // PRNG seed
	Changed float64 // share of models whose SQL changes in current (default 0.01)
	// LongNames gives models and sources realistic names of 30–40
	// characters (fct_customer_order_revenue_daily_00042) in layer/domain
	// folders (models/marts/finance/) instead of m_00042 at the top level.
	LongNames bool
	// ChangedTail, when set, draws the changed models from the last share
	// of models only (the marts), so that a PR impacts a realistic few
	// hundred models rather than everything downstream of a staging model.
	ChangedTail float64
}

var nameDomains = []string{"finance", "marketing", "sales", "logistics", "product", "support", "billing", "growth"}

// modelName is model i's name and folder under models/.
func modelName(o Options, r *rand.Rand, i int) (name, folder string) {
	if !o.LongNames {
		return fmt.Sprintf("m_%05d", i), ""
	}
	prefix := layerPrefix(i, o.Models)
	layer := map[string]string{"stg": "staging", "int": "intermediate", "fct": "marts"}[prefix]
	return longName(r, prefix, i), layer + "/" + nameDomains[i%len(nameDomains)]
}

// Project is a generated base/current pair.
type Project struct {
	BaseManifest, CurrentManifest []byte
	BaseCatalog, CurrentCatalog   []byte
	// ModelIDs in topological order.
	ModelIDs []string
	// ChangedIDs are the models whose SQL differs in current.
	ChangedIDs []string
	// Relations are the models' relations (the same in both builds), for
	// building a warehouse with BuildDuckDB.
	Relations []Relation
}

// Relation is one model's relation: its name, materialization (table or
// view) and catalog columns.
type Relation struct {
	Name         string
	Materialized string
	Columns      []Column
}

// Column is a catalog column.
type Column struct{ Name, Type string }

// Generate builds the project in memory.
func Generate(o Options) *Project {
	if o.Models <= 0 {
		o.Models = 5000
	}
	if o.Columns <= 0 {
		o.Columns = 20
	}
	if o.Changed == 0 {
		o.Changed = 0.01
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	const pkg = "synth"
	nSources := max(o.Models/20, 1)
	p := &Project{}
	type model struct {
		id, name string
		folder   string
		parents  []string
		cols     []string
	}
	sources := make([]model, nSources)
	for i := range sources {
		name := fmt.Sprintf("src_%d", i)
		if o.LongNames {
			name = longName(r, "src", i)
		}
		s := model{id: fmt.Sprintf("source.%s.raw.%s", pkg, name), name: name}
		s.cols = columnNames(r, "src", o.Columns)
		sources[i] = s
	}
	models := make([]model, o.Models)
	for i := range models {
		name, folder := modelName(o, r, i)
		m := model{id: fmt.Sprintf("model.%s.%s", pkg, name), name: name, folder: folder}
		switch {
		case i < o.Models/4: // staging: one source each
			m.parents = []string{sources[i%nSources].id}
		default: // 1–4 parents among earlier models, biased to recent layers
			k := 1 + r.IntN(4)
			seen := map[int]bool{}
			for j := 0; j < k; j++ {
				pi := i - 1 - r.IntN(min(i, 400))
				if !seen[pi] {
					seen[pi] = true
					m.parents = append(m.parents, models[pi].id)
				}
			}
		}
		m.cols = columnNames(r, "c", o.Columns)
		m.cols[0] = "id"
		models[i] = m
		p.ModelIDs = append(p.ModelIDs, m.id)
	}
	colsOf := map[string][]string{}
	nameOf := map[string]string{}
	for _, s := range sources {
		colsOf[s.id], nameOf[s.id] = s.cols, s.name
	}
	for _, m := range models {
		colsOf[m.id], nameOf[m.id] = m.cols, m.name
	}
	changed := map[string]bool{}
	tail := len(models) - int(o.ChangedTail*float64(len(models)))
	for i, m := range models {
		if r.Float64() < o.Changed && (o.ChangedTail == 0 || i >= tail) {
			changed[m.id] = true
			p.ChangedIDs = append(p.ChangedIDs, m.id)
		}
	}
	for _, m := range models {
		rel := Relation{Name: m.name, Materialized: materialization(m.parents)}
		for ci, c := range m.cols {
			rel.Columns = append(rel.Columns, Column{Name: c, Type: columnType(ci)})
		}
		p.Relations = append(p.Relations, rel)
	}
	build := func(schema string, current bool) ([]byte, []byte) {
		nodes := map[string]any{}
		catNodes := map[string]any{}
		parentMap := map[string][]string{}
		childMap := map[string][]string{}
		for _, m := range models {
			sql := compiledSQL(schema, m.cols, m.parents, colsOf, nameOf, current && changed[m.id])
			raw := strings.ReplaceAll(sql, `"synth"."`+schema+`".`, "")
			sum := sha256.Sum256([]byte(raw))
			cols := map[string]any{}
			catCols := map[string]any{}
			for ci, c := range m.cols {
				cols[c] = map[string]any{"name": c, "description": "column " + c, "data_type": nil, "meta": map[string]any{}, "tags": []string{}, "constraints": []any{}}
				catCols[c] = map[string]any{"name": c, "type": columnType(ci), "index": ci + 1}
			}
			mat := materialization(m.parents)
			nodes[m.id] = map[string]any{
				"unique_id": m.id, "name": m.name, "resource_type": "model", "package_name": pkg,
				"path": path.Join(m.folder, m.name+".sql"), "original_file_path": path.Join("models", m.folder, m.name+".sql"),
				"fqn": []string{pkg, m.name}, "alias": m.name, "database": "synth", "schema": schema,
				"relation_name":     fmt.Sprintf(`"synth"."%s"."%s"`, schema, m.name),
				"checksum":          map[string]any{"name": "sha256", "checksum": hex.EncodeToString(sum[:])},
				"config":            map[string]any{"enabled": true, "materialized": mat, "tags": []string{}, "meta": map[string]any{}, "contract": map[string]any{"enforced": false}, "persist_docs": map[string]any{}},
				"unrendered_config": map[string]any{"materialized": mat},
				"tags":              []string{}, "description": "model " + m.name, "columns": cols,
				"raw_code": raw, "compiled_code": sql, "language": "sql",
				"depends_on": map[string]any{"macros": []string{}, "nodes": m.parents},
				"refs":       []any{}, "sources": []any{}, "meta": map[string]any{},
			}
			catNodes[m.id] = map[string]any{"unique_id": m.id, "metadata": map[string]any{"type": strings.ToUpper(mat), "database": "synth", "schema": schema, "name": m.name}, "columns": catCols, "stats": map[string]any{}}
			parentMap[m.id] = m.parents
			for _, par := range m.parents {
				childMap[par] = append(childMap[par], m.id)
			}
		}
		srcs := map[string]any{}
		catSrcs := map[string]any{}
		for _, s := range sources {
			cols := map[string]any{}
			catCols := map[string]any{}
			for ci, c := range s.cols {
				cols[c] = map[string]any{"name": c, "description": "", "data_type": nil}
				catCols[c] = map[string]any{"name": c, "type": "VARCHAR", "index": ci + 1}
			}
			srcs[s.id] = map[string]any{
				"unique_id": s.id, "name": s.name, "source_name": "raw", "resource_type": "source", "package_name": pkg,
				"path": "models/sources.yml", "original_file_path": "models/sources.yml", "fqn": []string{pkg, "raw", s.name},
				"database": "synth", "schema": "raw", "identifier": s.name, "relation_name": fmt.Sprintf(`"synth"."raw"."%s"`, s.name),
				"columns": cols, "config": map[string]any{"enabled": true}, "unrendered_config": map[string]any{},
			}
			catSrcs[s.id] = map[string]any{"unique_id": s.id, "metadata": map[string]any{"type": "BASE TABLE", "database": "synth", "schema": "raw", "name": s.name}, "columns": catCols}
		}
		man := map[string]any{
			"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "dbt_version": "1.9.0",
				"generated_at": "2026-01-01T00:00:00Z", "invocation_id": "synth", "project_name": pkg, "adapter_type": "duckdb"},
			"nodes": nodes, "sources": srcs, "macros": map[string]any{}, "docs": map[string]any{}, "exposures": map[string]any{},
			"metrics": map[string]any{}, "groups": map[string]any{}, "selectors": map[string]any{}, "disabled": map[string]any{},
			"parent_map": parentMap, "child_map": childMap, "group_map": map[string]any{}, "saved_queries": map[string]any{},
			"semantic_models": map[string]any{}, "unit_tests": map[string]any{},
		}
		cat := map[string]any{
			"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json", "dbt_version": "1.9.0", "generated_at": "2026-01-01T00:00:00Z"},
			"nodes":    catNodes, "sources": catSrcs, "errors": nil,
		}
		mb, _ := json.Marshal(man)
		cb, _ := json.Marshal(cat)
		return mb, cb
	}
	p.BaseManifest, p.BaseCatalog = build("base", false)
	p.CurrentManifest, p.CurrentCatalog = build("current", true)
	return p
}

// layerPrefix is dbt's naming convention for the layer model i is in.
func layerPrefix(i, n int) string {
	switch {
	case i < n/4:
		return "stg"
	case i < n*3/4:
		return "int"
	}
	return "fct"
}

// longName is a realistic 30–40 character relation name, unique by i.
func longName(r *rand.Rand, prefix string, i int) string {
	words := []string{"customer", "order", "revenue", "payment", "invoice", "subscription", "session", "product",
		"inventory", "shipment", "account", "marketing", "campaign", "daily", "weekly", "summary", "events", "ledger"}
	name := prefix
	for len(name) < 24 {
		name += "_" + words[r.IntN(len(words))]
	}
	name = fmt.Sprintf("%s_%05d", name, i)
	if len(name) > 40 {
		name = name[:34] + name[len(name)-6:]
	}
	return name
}

// materialization makes staging models (one source parent) views and
// every other model a table.
func materialization(parents []string) string {
	if len(parents) == 1 && strings.HasPrefix(parents[0], "source.") {
		return "view"
	}
	return "table"
}

// columnType cycles through INTEGER, VARCHAR and DOUBLE by column position.
func columnType(i int) string {
	switch i % 3 {
	case 1:
		return "VARCHAR"
	case 2:
		return "DOUBLE"
	}
	return "INTEGER"
}

func columnNames(r *rand.Rand, prefix string, n int) []string {
	words := []string{"amount", "status", "created_at", "updated_at", "customer_id", "order_id", "price", "quantity", "region", "channel", "score", "name", "email", "country", "discount", "tax", "total", "currency", "segment", "flag"}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s_%s_%d", prefix, words[r.IntN(len(words))], i)
	}
	return out
}

// compiledSQL writes a CTE-heavy model: one import CTE per parent, a joined
// CTE, and a final select that passes through, renames and derives columns.
func compiledSQL(schema string, cols, parents []string, colsOf map[string][]string, nameOf map[string]string, changed bool) string {
	var b strings.Builder
	b.WriteString("with\n")
	for i, p := range parents {
		rel := fmt.Sprintf(`"synth"."%s"."%s"`, schema, nameOf[p])
		if strings.HasPrefix(p, "source.") {
			rel = fmt.Sprintf(`"synth"."raw"."%s"`, nameOf[p])
		}
		fmt.Fprintf(&b, "p%d as (\n  select * from %s\n),\n", i, rel)
	}
	first := colsOf[parents[0]]
	b.WriteString("joined as (\n  select\n")
	for i, c := range cols {
		src := first[i%len(first)]
		fmt.Fprintf(&b, "    p0.%s as %s_in", src, c)
		if i < len(cols)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  from p0\n")
	for i := 1; i < len(parents); i++ {
		pc := colsOf[parents[i]]
		fmt.Fprintf(&b, "  left join p%d on p0.%s = p%d.%s\n", i, first[0], i, pc[0])
	}
	b.WriteString("  where p0." + first[0] + " is not null\n),\nfinal as (\n  select\n")
	for i, c := range cols {
		switch {
		case i == 0:
			fmt.Fprintf(&b, "    %s_in as %s", c, c)
		case i%5 == 1:
			fmt.Fprintf(&b, "    coalesce(%s_in, 0) * 2 as %s", c, c)
		case i%5 == 2 && changed:
			fmt.Fprintf(&b, "    %s_in + 1 as %s", c, c)
		default:
			fmt.Fprintf(&b, "    %s_in as %s", c, c)
		}
		if i < len(cols)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  from joined\n)\nselect * from final\n")
	return b.String()
}

// Write stores the project as <dir>/target-base and <dir>/target.
func (p *Project) Write(dir string) error {
	for _, f := range []struct {
		sub, name string
		data      []byte
	}{
		{"target-base", "manifest.json", p.BaseManifest}, {"target-base", "catalog.json", p.BaseCatalog},
		{"target", "manifest.json", p.CurrentManifest}, {"target", "catalog.json", p.CurrentCatalog},
	} {
		if err := os.MkdirAll(filepath.Join(dir, f.sub), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.sub, f.name), f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
