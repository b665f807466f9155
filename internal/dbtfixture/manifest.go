package dbtfixture

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

type obj = map[string]any

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// relPath is the node's path relative to its resource directory, and
// original_file_path relative to the project.
func (n *bnode) paths() (string, string) {
	switch n.kind {
	case kindSeed:
		return n.name + ".csv", "seeds/" + n.name + ".csv"
	case kindSnapshot:
		return n.name + ".sql", "snapshots/" + n.name + ".sql"
	case kindSource:
		return "models/" + path.Join(n.r.dir, "sources.yml"), "models/" + path.Join(n.r.dir, "sources.yml")
	case "test":
		return n.name + ".sql", "models/" + path.Join(n.r.dir, "schema.yml")
	}
	p := path.Join(n.r.dir, n.name+".sql")
	return p, "models/" + p
}

func (n *bnode) fqn() []string {
	out := []string{n.pkg}
	if n.r.dir != "" && n.kind != kindSeed && n.kind != kindSnapshot {
		out = append(out, strings.Split(n.r.dir, "/")...)
	}
	if n.kind == kindSource {
		return append(out, n.r.sourceName, n.name)
	}
	return append(out, n.name)
}

func (n *bnode) documented() bool {
	return len(n.s.columns) > 0 || n.s.description != "" || len(n.s.tests) > 0
}

// columnsJSON merges documented and tested columns.
func (g *graphs) columnsJSON(sg *sideGraph, n *bnode) obj {
	cols := obj{}
	add := func(c ColumnDoc) {
		if _, ok := cols[c.Name]; ok {
			if c.Description == "" && c.DataType == "" {
				return
			}
		}
		cols[c.Name] = obj{"name": c.Name, "description": c.Description, "meta": obj{}, "data_type": nullIfEmpty(c.DataType),
			"constraints": []any{}, "quote": nil, "tags": orEmpty(c.Tags)}
	}
	for _, t := range n.s.tests {
		if t.column != "" {
			add(ColumnDoc{Name: t.column})
		}
	}
	for _, c := range n.s.columns {
		add(c)
	}
	return cols
}

func (g *graphs) contractJSON(n *bnode) obj {
	c := obj{"enforced": n.s.contract, "alias_types": true, "checksum": nil}
	if n.s.contract {
		var b strings.Builder
		for _, col := range n.s.columns {
			fmt.Fprintf(&b, "%s:%s;", col.Name, col.DataType)
		}
		c["checksum"] = sha256Hex(b.String())
	}
	return c
}

// configJSON is the rendered config with dbt's defaults, and the unrendered
// config holding only what the scenario set.
func (g *graphs) configJSON(n *bnode) (obj, obj) {
	s := n.s
	enabled := !s.disabled
	un := obj{}
	var cfg obj
	switch n.kind {
	case kindSource:
		cfg = obj{"enabled": enabled, "event_time": nil}
	default:
		mat := n.mat
		var uniqueKey any
		if len(s.uniqueKey) == 1 {
			uniqueKey = s.uniqueKey[0]
		} else if len(s.uniqueKey) > 1 {
			uniqueKey = s.uniqueKey
		}
		cfg = obj{
			"enabled": enabled, "alias": nullIfEmpty(s.alias), "schema": nil, "database": nil,
			"tags": orEmpty(s.tags), "meta": obj{}, "group": nil, "materialized": mat,
			"incremental_strategy": nil, "persist_docs": obj{}, "post-hook": []any{}, "pre-hook": []any{},
			"quoting": obj{}, "column_types": obj{}, "full_refresh": nil, "unique_key": uniqueKey,
			"on_schema_change": "ignore", "on_configuration_change": "apply", "grants": obj{},
			"packages": []any{}, "docs": obj{"show": true, "node_color": nil},
			"contract": obj{"enforced": s.contract, "alias_types": true},
		}
		switch n.kind {
		case kindModel:
			cfg["access"] = "protected"
		case kindSeed:
			cfg["delimiter"] = ","
			cfg["quote_columns"] = nil
		case kindSnapshot:
			cfg["strategy"] = "check"
			cfg["check_cols"] = "all"
			cfg["target_schema"] = n.schema
			cfg["target_database"] = nil
			cfg["snapshot_meta_column_names"] = obj{}
			un["strategy"] = "check"
			un["check_cols"] = "all"
			un["target_schema"] = "{{ target.schema }}" // as a project that builds per environment writes it
		}
		if s.matExplicit && n.kind == kindModel {
			un["materialized"] = mat
		}
		if len(s.tags) > 0 {
			un["tags"] = s.tags
		}
		if uniqueKey != nil {
			un["unique_key"] = uniqueKey
		}
		if s.contract {
			un["contract"] = obj{"enforced": true}
		}
	}
	if s.disabled {
		un["enabled"] = false
	}
	for _, k := range s.order {
		cfg[k] = s.config[k]
		un[k] = s.config[k]
	}
	return cfg, un
}

func refsJSON(refs []refSpec) []any {
	out := []any{}
	for _, r := range refs {
		out = append(out, obj{"name": r.name, "package": nullIfEmpty(r.pkg), "version": nil})
	}
	return out
}

// nodeJSON renders a model, seed or snapshot as dbt writes it.
func (g *graphs) nodeJSON(sg *sideGraph, n *bnode, created float64) obj {
	p, ofp := n.paths()
	cfg, un := g.configJSON(n)
	desc := n.s.description
	var patch any
	if n.documented() {
		patch = n.pkg + "://" + "models/" + path.Join(n.r.dir, "schema.yml")
	}
	checksum := obj{"name": "sha256", "checksum": sha256Hex(n.s.code)}
	j := obj{
		"database": g.out.Database, "schema": n.schema, "name": n.name, "resource_type": n.kind,
		"package_name": n.pkg, "path": p, "original_file_path": ofp, "unique_id": n.uid,
		"fqn": n.fqn(), "alias": n.alias, "checksum": checksum, "config": cfg,
		"tags": orEmpty(n.s.tags), "description": desc, "columns": g.columnsJSON(sg, n), "meta": obj{},
		"group": nil, "docs": obj{"show": true, "node_color": nil}, "patch_path": patch, "build_path": nil,
		"unrendered_config": un, "created_at": created, "relation_name": nullIfEmpty(n.rel),
		"raw_code": n.s.code, "language": "sql",
	}
	if meta, ok := n.s.config["meta"]; ok {
		j["meta"] = meta
	}
	if n.kind == kindSeed {
		j["raw_code"] = ""
		delete(j, "language")
		j["root_path"] = g.out.Dir
		j["depends_on"] = obj{"macros": []string{}}
		return j
	}
	macros := []string{}
	nodes := []string{}
	refs := []refSpec(nil)
	sources := []any{}
	if n.rend != nil {
		for _, m := range n.rend.macros {
			macros = append(macros, "macro."+g.p.name+"."+m)
		}
		refs = n.rend.refs
		for _, s := range n.rend.sources {
			sources = append(sources, []string{s[0], s[1]})
		}
		nodes = append(nodes, n.parents...)
	}
	j["refs"] = refsJSON(refs)
	j["sources"] = sources
	j["metrics"] = []any{}
	j["depends_on"] = obj{"macros": macros, "nodes": nodes}
	j["contract"] = g.contractJSON(n)
	if n.kind == kindModel {
		j["access"] = "protected"
		j["constraints"] = []any{}
		j["version"] = nil
		j["latest_version"] = nil
		j["deprecation_date"] = nil
	}
	if !n.s.disabled {
		ctes := []any{}
		for _, c := range n.ctes {
			ctes = append(ctes, obj{"id": c.id, "sql": " " + c.name + " as (\n" + c.sql + "\n)"})
		}
		j["compiled_path"] = "target/compiled/" + n.pkg + "/" + ofp
		j["compiled"] = true
		j["compiled_code"] = n.compiled
		j["extra_ctes_injected"] = true
		j["extra_ctes"] = ctes
	}
	return j
}

func (g *graphs) testJSON(sg *sideGraph, t *bnode, created float64) obj {
	severity := "ERROR"
	if t.test.severity != "" {
		severity = t.test.severity
	}
	macroNS := "dbt"
	if t.test.namespace != "" {
		macroNS = t.test.namespace
	}
	raw := "{{ test_" + t.test.name + "(**_dbt_generic_test_kwargs) }}"
	if t.test.namespace != "" {
		raw = "{{ " + t.test.namespace + ".test_" + t.test.name + "(**_dbt_generic_test_kwargs) }}"
	}
	var refs []refSpec
	sources := []any{}
	if t.r.kind == kindSource {
		sources = append(sources, []string{t.r.sourceName, t.r.name})
	} else {
		refs = append(refs, refSpec{name: t.r.name})
	}
	if t.test.to != "" {
		refs = append(refs, refSpec{name: t.test.to})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].name < refs[j].name })
	un := obj{}
	if t.test.severity != "" {
		un["severity"] = t.test.severity
	}
	p, ofp := t.paths()
	var col any
	if t.test.column != "" {
		col = t.test.column
	}
	fileKey := "models." + t.r.name
	if t.r.kind == kindSource {
		fileKey = "sources." + t.r.sourceName
	}
	return obj{
		"database": g.out.Database, "schema": t.schema, "name": t.name, "resource_type": "test",
		"package_name": t.pkg, "path": p, "original_file_path": ofp, "unique_id": t.uid,
		"fqn": []string{t.pkg, t.name}, "alias": t.alias, "checksum": obj{"name": "none", "checksum": ""},
		"config": obj{"enabled": true, "alias": nil, "schema": "dbt_test__audit", "database": nil, "tags": []string{},
			"meta": obj{}, "group": nil, "materialized": "test", "severity": severity, "store_failures": nil,
			"store_failures_as": nil, "where": nil, "limit": nil, "fail_calc": "count(*)", "warn_if": "!= 0", "error_if": "!= 0"},
		"tags": []string{}, "description": "", "columns": obj{}, "meta": obj{}, "group": nil,
		"docs": obj{"show": true, "node_color": nil}, "patch_path": nil, "build_path": nil,
		"unrendered_config": un, "created_at": created, "relation_name": nil,
		"raw_code": raw, "language": "sql", "refs": refsJSON(refs), "sources": sources, "metrics": []any{},
		"depends_on":    obj{"macros": []string{"macro." + macroNS + ".test_" + t.test.name, "macro.dbt.get_where_subquery"}, "nodes": t.parents},
		"compiled_path": "target/compiled/" + t.pkg + "/" + ofp + "/" + t.name + ".sql", "compiled": true,
		"compiled_code": t.compiled, "extra_ctes_injected": true, "extra_ctes": []any{},
		"contract":    obj{"enforced": false, "alias_types": true, "checksum": nil},
		"column_name": col, "file_key_name": fileKey, "attached_node": t.attached,
		"test_metadata": obj{"name": t.test.name, "kwargs": t.kwargs, "namespace": nullIfEmpty(t.test.namespace)},
	}
}

func (g *graphs) sourceJSON(n *bnode, created float64) obj {
	p, ofp := n.paths()
	cfg, un := g.configJSON(n)
	return obj{
		"database": g.out.Database, "schema": n.schema, "name": n.name, "resource_type": "source",
		"package_name": n.pkg, "path": p, "original_file_path": ofp, "unique_id": n.uid, "fqn": n.fqn(),
		"source_name": n.r.sourceName, "source_description": "", "loader": "", "identifier": n.name,
		"quoting":         obj{"database": nil, "schema": nil, "identifier": nil, "column": nil},
		"loaded_at_field": nil,
		"freshness":       obj{"warn_after": obj{"count": nil, "period": nil}, "error_after": obj{"count": nil, "period": nil}, "filter": nil},
		"external":        nil, "description": n.s.description, "columns": g.columnsJSON(nil, n), "meta": obj{}, "source_meta": obj{},
		"tags": orEmpty(n.s.tags), "config": cfg, "patch_path": nil, "unrendered_config": un,
		"relation_name": n.rel, "created_at": created,
	}
}

func (g *graphs) exposureJSON(n *bnode, created float64) obj {
	refs := []refSpec(nil)
	if n.rend != nil {
		refs = n.rend.refs
	}
	cfg := obj{"enabled": !n.s.disabled, "tags": orEmpty(n.s.tags), "meta": obj{}}
	un := obj{}
	if n.s.disabled {
		un["enabled"] = false
	}
	for _, k := range n.s.order {
		cfg[k] = n.s.config[k]
		un[k] = n.s.config[k]
	}
	return obj{
		"name": n.name, "resource_type": "exposure", "package_name": n.pkg, "path": "exposures.yml",
		"original_file_path": "models/exposures.yml", "unique_id": n.uid, "fqn": []string{n.pkg, n.name},
		"type": "dashboard", "owner": obj{"email": "data@example.com", "name": "Data team"},
		"description": n.s.description, "label": nil, "maturity": "high", "meta": obj{}, "tags": orEmpty(n.s.tags),
		"config": cfg, "unrendered_config": un, "url": nil,
		"depends_on": obj{"macros": []string{}, "nodes": orEmpty(n.parents)}, "refs": refsJSON(refs),
		"sources": []any{}, "metrics": []any{}, "created_at": created,
	}
}

func (g *graphs) macroJSON(uid, pkg, name, sqlText string, created float64) obj {
	file := "macros/" + name + ".sql"
	return obj{
		"name": name, "resource_type": "macro", "package_name": pkg, "path": file, "original_file_path": file,
		"unique_id": uid, "macro_sql": sqlText, "depends_on": obj{"macros": []string{}}, "description": "",
		"meta": obj{}, "docs": obj{"show": true, "node_color": nil}, "patch_path": nil, "arguments": []any{},
		"created_at": created, "supported_languages": nil,
	}
}

// builtinMacros are the dbt and dbt_utils macros generic tests depend on.
var builtinMacros = [][3]string{
	{"dbt", "get_where_subquery", "{% macro get_where_subquery(relation) -%}\n    {% do return(adapter.dispatch('get_where_subquery', 'dbt')(relation)) %}\n{%- endmacro %}"},
	{"dbt", "test_unique", "{% test unique(model, column_name) %}\n    {% set macro = adapter.dispatch('test_unique', 'dbt') %}\n    {{ macro(model, column_name) }}\n{% endtest %}"},
	{"dbt", "test_not_null", "{% test not_null(model, column_name) %}\n    {% set macro = adapter.dispatch('test_not_null', 'dbt') %}\n    {{ macro(model, column_name) }}\n{% endtest %}"},
	{"dbt", "test_accepted_values", "{% test accepted_values(model, column_name, values, quote=True) %}\n    {% set macro = adapter.dispatch('test_accepted_values', 'dbt') %}\n    {{ macro(model, column_name, values, quote) }}\n{% endtest %}"},
	{"dbt", "test_relationships", "{% test relationships(model, column_name, to, field) %}\n    {% set macro = adapter.dispatch('test_relationships', 'dbt') %}\n    {{ macro(model, column_name, to, field) }}\n{% endtest %}"},
	{"dbt_utils", "test_unique_combination_of_columns", "{% test unique_combination_of_columns(model, combination_of_columns, quote_columns=false) %}\n  {{ return(adapter.dispatch('test_unique_combination_of_columns', 'dbt_utils')(model, combination_of_columns, quote_columns)) }}\n{% endtest %}"},
}

func macroSQL(m *macroSpec, body string) string {
	return fmt.Sprintf("{%% macro %s(%s) %%}\n    %s\n{%% endmacro %%}", m.name, strings.Join(m.params, ", "), strings.TrimSpace(body))
}

func (g *graphs) manifest(sg *sideGraph) obj {
	now := sg.started
	created := float64(now.UnixMicro()) / 1e6
	nodes := obj{}
	parentMap := map[string][]string{}
	childMap := map[string][]string{}
	link := func(uid string, parents []string) {
		ps := append([]string{}, parents...)
		sort.Strings(ps)
		parentMap[uid] = ps
		if _, ok := childMap[uid]; !ok {
			childMap[uid] = []string{}
		}
		for _, p := range ps {
			childMap[p] = append(childMap[p], uid)
		}
	}
	for _, n := range sg.nodes {
		nodes[n.uid] = g.nodeJSON(sg, n, created)
		link(n.uid, n.parents)
	}
	for _, t := range sg.tests {
		nodes[t.uid] = g.testJSON(sg, t, created)
		link(t.uid, t.parents)
	}
	sources := obj{}
	for _, s := range sg.sources {
		sources[s.uid] = g.sourceJSON(s, created)
		link(s.uid, nil)
	}
	exposures := obj{}
	for _, e := range sg.exposures {
		exposures[e.uid] = g.exposureJSON(e, created)
		link(e.uid, e.parents)
	}
	for k := range childMap {
		sort.Strings(childMap[k])
	}
	disabled := obj{}
	for _, n := range sg.disabled {
		var j obj
		switch n.kind {
		case kindSource:
			j = g.sourceJSON(n, created)
		case kindExposure:
			j = g.exposureJSON(n, created)
		default:
			j = g.nodeJSON(sg, n, created)
		}
		disabled[n.uid] = []any{j}
	}
	macros := obj{}
	for _, m := range builtinMacros {
		uid := "macro." + m[0] + "." + m[1]
		macros[uid] = g.macroJSON(uid, m[0], m[1], m[2], created)
	}
	idx := sideIndex(sg.side)
	for _, m := range sg.macros {
		uid := "macro." + g.p.name + "." + m.name
		macros[uid] = g.macroJSON(uid, g.p.name, m.name, macroSQL(m, m.bodies[idx]), created)
	}
	return obj{
		"metadata":        g.metadata(sg, ManifestSchema, true),
		"nodes":           nodes,
		"sources":         sources,
		"macros":          macros,
		"docs":            obj{},
		"exposures":       exposures,
		"metrics":         obj{},
		"groups":          obj{},
		"selectors":       obj{},
		"disabled":        disabled,
		"parent_map":      parentMap,
		"child_map":       childMap,
		"group_map":       obj{},
		"saved_queries":   obj{},
		"semantic_models": obj{},
		"unit_tests":      obj{},
	}
}

func (g *graphs) metadata(sg *sideGraph, schema string, manifest bool) obj {
	m := obj{
		"dbt_schema_version": schema, "dbt_version": DbtVersion, "generated_at": timestamp(sg.finished),
		"invocation_id": sg.invocation, "env": obj{},
	}
	if manifest {
		sum := md5.Sum([]byte(g.p.name))
		m["project_name"] = g.p.name
		m["project_id"] = hex.EncodeToString(sum[:])
		m["user_id"] = nil
		m["send_anonymous_usage_stats"] = false
		m["adapter_type"] = "duckdb"
	}
	return m
}

func (g *graphs) catalogJSON(sg *sideGraph) obj {
	nodes, sources := obj{}, obj{}
	add := func(dst obj, n *bnode) {
		e := sg.catalog[n.uid]
		if e == nil {
			return
		}
		cols := obj{}
		for i, c := range e.columns {
			cols[c.name] = obj{"type": c.typ, "index": i + 1, "name": c.name, "comment": nil}
		}
		dst[n.uid] = obj{
			"metadata": obj{"type": e.tableType, "schema": n.schema, "name": n.alias, "database": g.out.Database, "comment": nil, "owner": nil},
			"columns":  cols,
			"stats": obj{"has_stats": obj{"id": "has_stats", "label": "Has Stats?", "value": false, "include": false,
				"description": "Indicates whether there are statistics for this table"}},
			"unique_id": n.uid,
		}
	}
	for _, n := range sg.nodes {
		add(nodes, n)
	}
	for _, s := range sg.sources {
		add(sources, s)
	}
	return obj{"metadata": g.metadata(sg, CatalogSchema, false), "nodes": nodes, "sources": sources, "errors": nil}
}

func (g *graphs) runResultsJSON(sg *sideGraph) obj {
	results := []any{}
	for _, r := range sg.results {
		var failures any
		if r.failures != nil {
			failures = *r.failures
		}
		var msg any = r.message
		if r.message == "" {
			msg = nil
		}
		results = append(results, obj{
			"status": r.status,
			"timing": []any{
				obj{"name": "compile", "started_at": timestamp(r.started), "completed_at": timestamp(r.started)},
				obj{"name": "execute", "started_at": timestamp(r.started), "completed_at": timestamp(r.done)},
			},
			"thread_id": "Thread-1 (worker)", "execution_time": r.done.Sub(r.started).Seconds(),
			"adapter_response": obj{}, "message": msg, "failures": failures, "unique_id": r.uid,
			"compiled": r.node.kind != kindSeed, "compiled_code": nullIfEmpty(r.node.compiled),
			"relation_name": nullIfEmpty(r.node.rel),
		})
	}
	target := "base"
	if sg.side == Current {
		target = "current"
	}
	return obj{
		"metadata":     g.metadata(sg, RunResultsSchema, false),
		"results":      results,
		"elapsed_time": sg.finished.Sub(sg.started).Seconds(),
		"args": obj{"which": "build", "invocation_command": "dbt build --target " + target, "project_dir": g.out.Dir,
			"profiles_dir": g.out.Dir, "target": target, "select": []any{}, "exclude": []any{}, "vars": obj{}},
	}
}

// writeJSON writes v the way dbt does: compact, without HTML escaping.
func writeJSON(file string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("dbtfixture: encoding %s: %w", file, err)
	}
	if err := os.WriteFile(file, bytes.TrimRight(buf.Bytes(), "\n"), 0o644); err != nil {
		return fmt.Errorf("dbtfixture: writing %s: %w", file, err)
	}
	return nil
}

func (g *graphs) writeArtifacts(sg *sideGraph) error {
	dir := g.out.Paths.CurrentDir()
	if sg.side == Base {
		dir = g.out.Paths.BaseDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("dbtfixture: %w", err)
	}
	if err := writeJSON(filepath.Join(dir, "manifest.json"), g.manifest(sg)); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "catalog.json"), g.catalogJSON(sg)); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "run_results.json"), g.runResultsJSON(sg))
}

// writeProjectFiles writes dbt_project.yml, profiles.yml and the current
// side's models, seeds and macros.
func (p *Project) writeProjectFiles(out *Built) error {
	files := map[string]string{
		"dbt_project.yml": fmt.Sprintf("name: %s\nversion: \"1.0.0\"\nconfig-version: 2\nprofile: %s\n\nmodel-paths: [\"models\"]\nseed-paths: [\"seeds\"]\nmacro-paths: [\"macros\"]\nsnapshot-paths: [\"snapshots\"]\ntarget-path: target\npackages-install-path: dbt_packages\n",
			p.name, p.name),
		"profiles.yml": fmt.Sprintf("%s:\n  target: current\n  outputs:\n    base:\n      type: duckdb\n      path: %s\n      schema: %s\n      threads: 1\n    current:\n      type: duckdb\n      path: %s\n      schema: %s\n      threads: 1\n",
			p.name, yamlString(out.DBPath), yamlString(out.BaseSchema), yamlString(out.DBPath), yamlString(out.CurrentSchema)),
	}
	for _, r := range p.resources {
		s := r.sides[1]
		if s == nil || r.kind == kindSource || r.kind == kindExposure {
			continue
		}
		n := &bnode{r: r, kind: r.kind, name: r.name}
		_, ofp := n.paths()
		if r.pkg != "" && r.pkg != p.name {
			// original_file_path is relative to the package's root, as in dbt.
			ofp = path.Join("dbt_packages", r.pkg, ofp)
		}
		files[ofp] = s.code
	}
	for _, m := range p.macros {
		if m.bodies[1] != "" {
			files["macros/"+m.name+".sql"] = macroSQL(m, m.bodies[1]) + "\n"
		}
	}
	for _, name := range sortedKeys(files) {
		full := filepath.Join(out.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("dbtfixture: %w", err)
		}
		if err := os.WriteFile(full, []byte(files[name]), 0o644); err != nil {
			return fmt.Errorf("dbtfixture: writing %s: %w", name, err)
		}
	}
	return nil
}

func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
