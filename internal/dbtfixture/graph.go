package dbtfixture

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// graphs holds the planned builds of both sides.
type graphs struct {
	p     *Project
	out   *Built
	sides [2]*sideGraph
}

// sideGraph is one side's build: the dbt DAG plus what executing it produced.
type sideGraph struct {
	side       Side
	schema     string
	invocation string
	started    time.Time
	finished   time.Time
	nodes      []*bnode // enabled models, seeds and snapshots in build order
	tests      []*bnode
	sources    []*bnode
	exposures  []*bnode
	disabled   []*bnode
	macros     []*macroSpec
	byID       map[string]*bnode
	byRes      map[*resource]*bnode
	catalog    map[string]*catalogEntry
	results    []runResult
}

// bnode is a node on one side.
type bnode struct {
	r        *resource
	s        *sideSpec
	uid      string
	kind     string
	pkg      string
	name     string
	alias    string
	schema   string
	rel      string // quoted relation, "" for ephemeral models and tests
	mat      string
	rend     *rendered
	parents  []string // depends_on.nodes in first-use order
	compiled string
	ctes     []cte
	test     *TestSpec
	attached string
	testCols []string
	kwargs   map[string]any
}

type catalogEntry struct {
	tableType string
	columns   []catalogColumn
}

type catalogColumn struct {
	name, typ string
}

type runResult struct {
	uid      string
	status   string
	message  string
	failures *int64
	started  time.Time
	done     time.Time
	node     *bnode
}

func (g *graphs) pkg(r *resource) string {
	if r.pkg != "" {
		return r.pkg
	}
	return g.p.name
}

// plan resolves one side's DAG: unique ids, relations, compiled code and
// the build order.
func (g *graphs) plan(side Side) (*sideGraph, error) {
	idx := sideIndex(side)
	sg := &sideGraph{side: side, schema: g.out.Schema(side), invocation: newInvocationID(), byID: map[string]*bnode{}, byRes: map[*resource]*bnode{}, catalog: map[string]*catalogEntry{}}
	for _, m := range g.p.macros {
		if m.bodies[idx] != "" {
			sg.macros = append(sg.macros, m)
		}
	}
	byName := map[string][]*bnode{}
	disabledByName := map[string]bool{}
	var all []*bnode
	for _, r := range g.p.resources {
		s := r.sides[idx]
		if s == nil {
			continue
		}
		n := &bnode{r: r, s: s, kind: r.kind, pkg: g.pkg(r), name: r.name, alias: r.name, schema: sg.schema, mat: string(s.mat)}
		if s.alias != "" {
			n.alias = s.alias
		}
		switch r.kind {
		case kindSource:
			n.uid = fmt.Sprintf("source.%s.%s.%s", n.pkg, r.sourceName, r.name)
			n.schema = r.sourceName
		case kindExposure:
			n.uid = fmt.Sprintf("exposure.%s.%s", n.pkg, r.name)
		default:
			n.uid = fmt.Sprintf("%s.%s.%s", r.kind, n.pkg, r.name)
		}
		if n.kind == kindSnapshot {
			n.mat = string(Snapshot)
		}
		if n.mat != string(Ephemeral) && r.kind != kindExposure {
			n.rel = quoteRelation(g.out.Database, n.schema, n.alias)
		}
		if _, dup := sg.byID[n.uid]; dup {
			return nil, fmt.Errorf("two resources have unique id %s", n.uid)
		}
		if s.disabled {
			sg.disabled = append(sg.disabled, n)
			disabledByName[r.name] = true
			continue
		}
		sg.byID[n.uid] = n
		sg.byRes[r] = n
		switch r.kind {
		case kindSource:
			sg.sources = append(sg.sources, n)
			continue
		case kindExposure:
			sg.exposures = append(sg.exposures, n)
			continue
		}
		byName[r.name] = append(byName[r.name], n)
		all = append(all, n)
	}
	lookup := func(from *bnode, pkg, name string) (*bnode, error) {
		for _, c := range byName[name] {
			if pkg == "" || c.pkg == pkg {
				return c, nil
			}
		}
		if disabledByName[name] {
			return nil, fmt.Errorf("%s refs %q, which is disabled on the %s side", from.uid, name, side)
		}
		return nil, fmt.Errorf("%s refs %q, which does not exist on the %s side; declare it (with SQL on this side) or remove the ref", from.uid, name, side)
	}
	// Render every node, recording its parents.
	for _, n := range all {
		if n.kind == kindSeed {
			continue
		}
		res := &nodeResolver{g: g, sg: sg, n: n, lookup: lookup}
		rend, err := render(n.s.code, res)
		if err != nil {
			return nil, fmt.Errorf("compiling %s: %w", n.uid, err)
		}
		n.rend = rend
		n.parents = res.parents
	}
	order, err := topoSort(all, sg.byID)
	if err != nil {
		return nil, err
	}
	for _, n := range order {
		if n.rend == nil {
			continue
		}
		n.ctes = ephemeralCTEs(n, sg.byID)
		n.compiled = injectCTEs(n.rend.compiled, n.ctes)
	}
	sg.nodes = order
	for _, e := range sg.exposures {
		e.rend = &rendered{}
		for _, m := range e.s.dependsOn {
			t, err := lookup(e, "", m)
			if err != nil {
				return nil, err
			}
			e.parents = append(e.parents, t.uid)
			e.rend.refs = appendRef(e.rend.refs, refSpec{name: m})
		}
	}
	// Tests, in declaration order.
	for _, r := range g.p.resources {
		s := r.sides[idx]
		if s == nil || s.disabled {
			continue
		}
		for i := range s.tests {
			t, err := g.planTest(sg, r, &s.tests[i], lookup)
			if err != nil {
				return nil, err
			}
			if _, dup := sg.byID[t.uid]; dup {
				return nil, fmt.Errorf("test %s is declared twice", t.uid)
			}
			sg.byID[t.uid] = t
			sg.tests = append(sg.tests, t)
		}
	}
	return sg, nil
}

// nodeResolver resolves a node's refs and sources on its side.
type nodeResolver struct {
	g       *graphs
	sg      *sideGraph
	n       *bnode
	lookup  func(from *bnode, pkg, name string) (*bnode, error)
	parents []string
}

func (r *nodeResolver) addParent(uid string) {
	for _, p := range r.parents {
		if p == uid {
			return
		}
	}
	r.parents = append(r.parents, uid)
}

func (r *nodeResolver) ref(pkg, name string) (string, error) {
	t, err := r.lookup(r.n, pkg, name)
	if err != nil {
		return "", err
	}
	r.addParent(t.uid)
	if t.mat == string(Ephemeral) {
		return ephemeralCTEStart + t.name, nil
	}
	return t.rel, nil
}

func (r *nodeResolver) source(src, table string) (string, error) {
	for _, s := range r.sg.sources {
		if s.r.sourceName == src && s.name == table {
			r.addParent(s.uid)
			return s.rel, nil
		}
	}
	return "", fmt.Errorf("%s uses source(%q, %q), which is not declared; declare it with Project.Source", r.n.uid, src, table)
}

func (r *nodeResolver) this() string {
	if r.n.rel == "" {
		return ephemeralCTEStart + r.n.name
	}
	return r.n.rel
}

func (r *nodeResolver) macro(name string) (*macroSpec, string, bool) {
	idx := sideIndex(r.sg.side)
	for _, m := range r.sg.macros {
		if m.name == name {
			return m, m.bodies[idx], true
		}
	}
	return nil, "", false
}

// topoSort orders nodes so that parents come first, keeping declaration
// order otherwise.
func topoSort(nodes []*bnode, byID map[string]*bnode) ([]*bnode, error) {
	state := map[string]int{} // 1 visiting, 2 done
	var out []*bnode
	var visit func(n *bnode, path []string) error
	visit = func(n *bnode, path []string) error {
		switch state[n.uid] {
		case 1:
			return fmt.Errorf("dependency cycle: %s -> %s", strings.Join(path, " -> "), n.uid)
		case 2:
			return nil
		}
		state[n.uid] = 1
		for _, p := range n.parents {
			if pn := byID[p]; pn != nil && pn.kind != kindSource {
				if err := visit(pn, append(path, n.uid)); err != nil {
					return err
				}
			}
		}
		state[n.uid] = 2
		out = append(out, n)
		return nil
	}
	for _, n := range nodes {
		if err := visit(n, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ephemeralCTEs lists the ephemeral models n needs, flattened with their
// own ephemeral parents first, as dbt's extra_ctes.
func ephemeralCTEs(n *bnode, byID map[string]*bnode) []cte {
	var out []cte
	seen := map[string]bool{}
	var walk func(x *bnode)
	walk = func(x *bnode) {
		for _, p := range x.parents {
			pn := byID[p]
			if pn == nil || pn.mat != string(Ephemeral) || seen[p] {
				continue
			}
			seen[p] = true
			walk(pn)
			out = append(out, cte{id: pn.uid, name: ephemeralCTEStart + pn.name, sql: pn.rend.compiled})
		}
	}
	walk(n)
	return out
}

// planTest builds a generic test node.
func (g *graphs) planTest(sg *sideGraph, r *resource, t *TestSpec, lookup func(*bnode, string, string) (*bnode, error)) (*bnode, error) {
	target := sg.byRes[r]
	if target == nil {
		return nil, fmt.Errorf("test %s on %s: the node is not built on the %s side", t.name, r.name, sg.side)
	}
	if target.rel == "" {
		return nil, fmt.Errorf("test %s on %s: ephemeral models cannot be tested", t.name, target.uid)
	}
	modelRef := fmt.Sprintf("ref('%s')", r.name)
	subject := r.name
	prefix := ""
	if r.kind == kindSource {
		modelRef = fmt.Sprintf("source('%s', '%s')", r.sourceName, r.name)
		subject = r.sourceName + "_" + r.name
		prefix = "source_"
	}
	tn := &bnode{r: r, s: r.sides[sideIndex(sg.side)], kind: "test", pkg: target.pkg, test: t, attached: target.uid, mat: "test",
		schema: sg.schema + testAuditSuffix}
	kwargs := map[string]any{"model": "{{ get_where_subquery(" + modelRef + ") }}"}
	ns := ""
	if t.namespace != "" {
		ns = t.namespace + "_"
	}
	parents := []string{target.uid}
	col := t.column
	var name, sqlText string
	switch t.name {
	case "unique":
		name = fmt.Sprintf("%sunique_%s_%s", prefix, subject, col)
		sqlText = fmt.Sprintf("\n    \n    \n\nselect\n    %s as unique_field,\n    count(*) as n_records\n\nfrom %s\nwhere %s is not null\ngroup by %s\nhaving count(*) > 1\n\n\n", col, target.rel, col, col)
	case "not_null":
		name = fmt.Sprintf("%snot_null_%s_%s", prefix, subject, col)
		sqlText = fmt.Sprintf("\n    \n    \n\n\n\nselect %s\nfrom %s\nwhere %s is null\n\n\n", col, target.rel, col)
	case "accepted_values":
		name = fmt.Sprintf("%saccepted_values_%s_%s__%s", prefix, subject, col, strings.Join(t.values, "__"))
		lits := make([]string, len(t.values))
		for i, v := range t.values {
			lits[i] = stringLiteral(v)
		}
		kwargs["values"] = t.values
		sqlText = fmt.Sprintf("\n    \n    \n\nwith all_values as (\n\n    select\n        %s as value_field,\n        count(*) as n_records\n\n    from %s\n    group by %s\n\n)\n\nselect *\nfrom all_values\nwhere value_field not in (\n    %s\n)\n\n\n", col, target.rel, col, strings.Join(lits, ","))
	case "relationships":
		to, err := lookup(target, "", t.to)
		if err != nil {
			return nil, fmt.Errorf("relationships test on %s.%s: %w", r.name, col, err)
		}
		if to.rel == "" {
			return nil, fmt.Errorf("relationships test on %s.%s: %s is ephemeral", r.name, col, to.uid)
		}
		name = fmt.Sprintf("%srelationships_%s_%s__%s__ref_%s_", prefix, subject, col, t.field, t.to)
		kwargs["to"] = fmt.Sprintf("ref('%s')", t.to)
		kwargs["field"] = t.field
		parents = append(parents, to.uid)
		sqlText = fmt.Sprintf("\n    \n    \n\nwith child as (\n    select %s as from_field\n    from %s\n    where %s is not null\n),\n\nparent as (\n    select %s as to_field\n    from %s\n)\n\nselect\n    from_field\n\nfrom child\nleft join parent\n    on child.from_field = parent.to_field\n\nwhere parent.to_field is null\n\n\n", col, target.rel, col, t.field, to.rel)
	case "unique_combination_of_columns":
		name = fmt.Sprintf("%s%sunique_combination_of_columns_%s_%s", ns, prefix, subject, strings.Join(t.columns, "__"))
		kwargs["combination_of_columns"] = t.columns
		cols := strings.Join(t.columns, ", ")
		sqlText = fmt.Sprintf("\n\n\n\n\n\nwith validation_errors as (\n\n    select\n        %s\n    from %s\n    group by %s\n    having count(*) > 1\n\n)\n\nselect *\nfrom validation_errors\n\n\n", cols, target.rel, cols)
	default:
		return nil, fmt.Errorf("unknown test %q", t.name)
	}
	if col != "" {
		kwargs["column_name"] = col
		tn.testCols = []string{col}
	} else {
		tn.testCols = t.columns
	}
	sort.Strings(parents)
	tn.name, tn.alias, tn.parents, tn.kwargs, tn.compiled = name, name, parents, kwargs, sqlText
	sum := md5.Sum([]byte(name + "|" + target.uid + "|" + fmt.Sprint(t.values, t.columns, t.to, t.field)))
	tn.uid = fmt.Sprintf("test.%s.%s.%s", tn.pkg, name, hex.EncodeToString(sum[:])[:10])
	return tn, nil
}

// loadSources creates the shared source tables, one schema per source.
func (g *graphs) loadSources(ctx context.Context, ex *executor) error {
	schemas := map[string]bool{}
	for _, r := range g.p.resources {
		if r.kind != kindSource {
			continue
		}
		if !schemas[r.sourceName] {
			schemas[r.sourceName] = true
			if err := ex.exec(ctx, "create schema if not exists "+quoteIdent(r.sourceName)); err != nil {
				return fmt.Errorf("dbtfixture: creating source schema: %w", err)
			}
		}
		rel := quoteRelation(g.out.Database, r.sourceName, r.name)
		if err := ex.loadCSV(ctx, rel, r.sides[0].code); err != nil {
			return fmt.Errorf("dbtfixture: loading source %s.%s: %w", r.sourceName, r.name, err)
		}
	}
	return nil
}

// execute builds one side in DuckDB and runs its tests.
func (g *graphs) execute(ctx context.Context, ex *executor, sg *sideGraph) error {
	sg.started = time.Now()
	if err := ex.exec(ctx, "create schema if not exists "+quoteIdent(sg.schema)); err != nil {
		return err
	}
	for _, n := range sg.nodes {
		if n.mat == string(Ephemeral) {
			continue
		}
		start := time.Now()
		var err error
		switch {
		case n.kind == kindSeed:
			err = ex.loadCSV(ctx, n.rel, n.s.code)
		case n.mat == string(View):
			err = ex.exec(ctx, fmt.Sprintf("create view %s as (\n%s\n)", n.rel, n.compiled))
		case n.kind == kindSnapshot:
			err = ex.exec(ctx, snapshotSQL(n))
		default: // table, incremental (a first build is a full build)
			err = ex.exec(ctx, fmt.Sprintf("create table %s as (\n%s\n)", n.rel, n.compiled))
		}
		if err != nil {
			return fmt.Errorf("building %s: %w", n.uid, err)
		}
		sg.results = append(sg.results, runResult{uid: n.uid, status: "success", message: "OK", started: start, done: time.Now(), node: n})
	}
	for _, t := range sg.tests {
		start := time.Now()
		var failures int64
		q := fmt.Sprintf("select count(*) from (\n%s\n) dbt_internal_test", t.compiled)
		if err := ex.conn.QueryRowContext(ctx, q).Scan(&failures); err != nil {
			return fmt.Errorf("running %s: %w\nSQL: %s", t.uid, err, q)
		}
		status, msg := "pass", ""
		if failures > 0 {
			status = "fail"
			if t.test.severity == "warn" {
				status = "warn"
			}
			msg = fmt.Sprintf("Got %d result%s, configured to fail if != 0", failures, plural(failures))
		}
		f := failures
		sg.results = append(sg.results, runResult{uid: t.uid, status: status, message: msg, failures: &f, started: start, done: time.Now(), node: t})
	}
	sg.finished = time.Now()
	return nil
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func snapshotSQL(n *bnode) string {
	keys := n.s.uniqueKey
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("cast(%s as varchar)", k))
	}
	key := "cast(null as varchar)"
	if len(parts) > 0 {
		key = "concat_ws('|', " + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("create table %s as (\nselect\n    snapshot_query.*,\n    md5(concat_ws('|', %s, '2024-01-01 00:00:00')) as dbt_scd_id,\n    timestamp '2024-01-01 00:00:00' as dbt_updated_at,\n    timestamp '2024-01-01 00:00:00' as dbt_valid_from,\n    cast(null as timestamp) as dbt_valid_to\nfrom (\n%s\n) as snapshot_query\n)", n.rel, key, n.compiled)
}

// catalog reads the physical columns of every relation of the side.
func (g *graphs) catalog(ctx context.Context, ex *executor, sg *sideGraph) error {
	schemas := []string{sg.schema}
	for _, s := range sg.sources {
		schemas = append(schemas, s.schema)
	}
	type key struct{ schema, name string }
	found := map[key]*catalogEntry{}
	for _, schema := range schemas {
		rows, err := ex.conn.QueryContext(ctx, `select t.table_name, t.table_type, c.column_name, c.data_type
from information_schema.tables t
join information_schema.columns c
  on c.table_catalog = t.table_catalog and c.table_schema = t.table_schema and c.table_name = t.table_name
where t.table_catalog = ? and t.table_schema = ?
order by t.table_name, c.ordinal_position`, g.out.Database, schema)
		if err != nil {
			return err
		}
		for rows.Next() {
			var name, typ, col, dt string
			if err := rows.Scan(&name, &typ, &col, &dt); err != nil {
				rows.Close()
				return err
			}
			k := key{schema, name}
			e := found[k]
			if e == nil {
				e = &catalogEntry{tableType: typ}
				found[k] = e
			}
			e.columns = append(e.columns, catalogColumn{name: col, typ: dt})
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	for _, n := range append(append([]*bnode(nil), sg.nodes...), sg.sources...) {
		if n.rel == "" {
			continue
		}
		if e := found[key{n.schema, n.alias}]; e != nil {
			sg.catalog[n.uid] = e
		}
	}
	return nil
}
