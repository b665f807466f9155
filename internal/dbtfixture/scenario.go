package dbtfixture

import (
	"fmt"
	"sort"
	"strings"
)

// TB is the part of testing.TB the builder uses; *testing.T and *testing.B
// satisfy it. It is declared here so that the demo does not import testing.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	TempDir() string
}

// Side selects one or both builds of the project.
type Side int

// Sides of a scenario.
const (
	Base Side = 1 << iota
	Current
	Both = Base | Current
)

func (s Side) String() string {
	switch s {
	case Base:
		return "base"
	case Current:
		return "current"
	}
	return "both"
}

// sideIndex returns 0 for base and 1 for current.
func sideIndex(s Side) int {
	if s == Current {
		return 1
	}
	return 0
}

var sidesInOrder = [2]Side{Base, Current}

// Materialization is a dbt materialization. Use the constants, or
// Incremental to give an incremental model its unique key.
type Materialization string

// Materializations.
const (
	View      Materialization = "view"
	Table     Materialization = "table"
	Ephemeral Materialization = "ephemeral"
	// Snapshot makes the node a dbt snapshot (resource type "snapshot"): a
	// table with dbt_scd_id, dbt_updated_at, dbt_valid_from and dbt_valid_to.
	Snapshot Materialization = "snapshot"
)

// Incremental is an incremental model with the given unique key (none for an
// append-only model). The first build of an incremental model is a full
// build, so in DuckDB it is a table.
func Incremental(uniqueKey ...string) Materialization {
	return Materialization("incremental:" + strings.Join(uniqueKey, ","))
}

// name and uniqueKey split an Incremental value.
func (m Materialization) parts() (string, []string) {
	name, keys, ok := strings.Cut(string(m), ":")
	if !ok || keys == "" {
		return name, nil
	}
	return name, strings.Split(keys, ",")
}

// CSV is seed or source data as a CSV document with a header line.
type CSV string

// Rows are the rows of an inline table (see Project.Table). A nil Rows on a
// side means the model does not exist on that side; Rows{} is an empty table.
type Rows [][]any

// Expr is a SQL expression used verbatim as a value in Rows, e.g.
// Expr("date '2024-01-31'").
type Expr string

// ColumnDoc is a column documented in YAML.
type ColumnDoc struct {
	Name        string
	Description string
	DataType    string
	Tags        []string
}

// Col documents a column.
func Col(name, description string) ColumnDoc { return ColumnDoc{Name: name, Description: description} }

// Type returns the column with a declared data_type (needed by enforced contracts).
func (c ColumnDoc) Type(dataType string) ColumnDoc {
	c.DataType = dataType
	return c
}

// TestSpec is a generic data test attached to a model, seed or source.
type TestSpec struct {
	name      string // unique, not_null, relationships, accepted_values, unique_combination_of_columns
	namespace string // "" for dbt's own tests, "dbt_utils"
	column    string
	columns   []string
	to, field string
	values    []string
	severity  string
}

// Unique is dbt's unique test on a column.
func Unique(column string) TestSpec { return TestSpec{name: "unique", column: column} }

// NotNull is dbt's not_null test on a column.
func NotNull(column string) TestSpec { return TestSpec{name: "not_null", column: column} }

// Relationships is dbt's relationships test: every column value must exist
// in toModel.field.
func Relationships(column, toModel, field string) TestSpec {
	return TestSpec{name: "relationships", column: column, to: toModel, field: field}
}

// AcceptedValues is dbt's accepted_values test.
func AcceptedValues(column string, values ...string) TestSpec {
	return TestSpec{name: "accepted_values", column: column, values: values}
}

// UniqueCombination is dbt_utils.unique_combination_of_columns.
func UniqueCombination(columns ...string) TestSpec {
	return TestSpec{name: "unique_combination_of_columns", namespace: "dbt_utils", columns: columns}
}

// Warn returns the test with severity "warn".
func (t TestSpec) Warn() TestSpec {
	t.severity = "warn"
	return t
}

// Resource kinds.
const (
	kindModel    = "model"
	kindSeed     = "seed"
	kindSnapshot = "snapshot"
	kindSource   = "source"
	kindExposure = "exposure"
)

// resource is one declared model, seed, snapshot or source table.
type resource struct {
	kind       string
	name       string
	pkg        string // "" = the root project
	dir        string // sub-directory of models/ (models only)
	sourceName string // sources only
	sides      [2]*sideSpec
}

// sideSpec is a resource as it is on one side.
type sideSpec struct {
	code         string // raw SQL, or CSV for seeds and sources
	mat          Materialization
	matExplicit  bool
	tags         []string
	config       map[string]any // explicitly set config keys (besides materialized/tags)
	order        []string       // order in which config keys were set
	disabled     bool
	contract     bool
	columns      []ColumnDoc
	tests        []TestSpec
	description  string
	alias        string
	uniqueKey    []string
	inlineColumn []string // Table(): declared columns
	dependsOn    []string // exposures: the models they use
}

// Project is a scenario: the resources of a dbt project on its base and
// current sides. Build it with Build or MustBuild.
type Project struct {
	tb            TB
	name          string
	dbFile        string
	baseSchema    string
	currentSchema string
	resources     []*resource
	macros        []*macroSpec
	errs          []error
}

// New starts a scenario for project "ripple_test". tb may be nil; it is used
// by MustBuild.
func New(tb TB) *Project {
	return &Project{tb: tb, name: "ripple_test", dbFile: "ripple.duckdb", baseSchema: "base", currentSchema: "current"}
}

// Name sets the dbt project name (default "ripple_test").
func (p *Project) Name(name string) *Project {
	p.name = name
	return p
}

// Schemas sets the schemas of the base and current builds (default "base"
// and "current").
func (p *Project) Schemas(base, current string) *Project {
	p.baseSchema, p.currentSchema = base, current
	return p
}

// DatabaseFile sets the DuckDB file name in the build directory (default
// "ripple.duckdb"); its stem is the dbt database name.
func (p *Project) DatabaseFile(name string) *Project {
	p.dbFile = name
	return p
}

func (p *Project) errorf(format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf(format, args...))
}

func (p *Project) add(r *resource) Node {
	for _, o := range p.resources {
		if o.kind == r.kind && o.name == r.name && o.sourceName == r.sourceName && o.pkg == r.pkg {
			p.errorf("dbtfixture: %s %q is declared twice; declare each resource once and use Base()/Current() for side-specific settings", r.kind, r.name)
		}
	}
	p.resources = append(p.resources, r)
	return Node{p: p, r: r, mask: Both}
}

// Model declares a model. base or current SQL "" means the model does not
// exist on that side (an added or a removed model). SQL may use
// {{ ref('x') }}, {{ ref('pkg', 'x') }}, {{ source('s', 't') }}, {{ this }},
// scenario macros and {% if is_incremental() %}...{% endif %}.
func (p *Project) Model(name string, m Materialization, base, current string) Node {
	r := &resource{kind: kindModel, name: name}
	if m == Snapshot {
		r.kind = kindSnapshot
	}
	name0, keys := m.parts()
	for i, code := range [2]string{base, current} {
		if code == "" {
			continue
		}
		r.sides[i] = &sideSpec{code: code, mat: Materialization(name0), matExplicit: true, uniqueKey: keys, config: map[string]any{}}
	}
	return p.add(r)
}

// Table declares a table model whose data is given inline: its SQL is a
// select from VALUES. columns are "name" or "name TYPE" (e.g. "id INTEGER");
// untyped columns get DuckDB's inferred type. A nil Rows on a side means the
// model does not exist there.
func (p *Project) Table(name string, columns []string, base, current Rows) Node {
	r := &resource{kind: kindModel, name: name}
	for i, rows := range [2]Rows{base, current} {
		if rows == nil {
			continue
		}
		code, err := valuesSQL(columns, rows)
		if err != nil {
			p.errorf("dbtfixture: table %q (%s): %w", name, sidesInOrder[i], err)
			continue
		}
		r.sides[i] = &sideSpec{code: code, mat: Table, matExplicit: true, config: map[string]any{}, inlineColumn: columns}
	}
	return p.add(r)
}

// Seed declares a seed with the same data on both sides.
func (p *Project) Seed(name string, data CSV) Node {
	return p.SeedSides(name, data, data)
}

// SeedSides declares a seed whose data differs between the sides; "" means
// the seed does not exist on that side.
func (p *Project) SeedSides(name string, base, current CSV) Node {
	r := &resource{kind: kindSeed, name: name}
	for i, data := range [2]CSV{base, current} {
		if data == "" {
			continue
		}
		r.sides[i] = &sideSpec{code: string(data), mat: "seed", config: map[string]any{}}
	}
	return p.add(r)
}

// Source declares the source table source(sourceName, table), loaded with
// data into schema sourceName of the database and shared by both builds.
func (p *Project) Source(sourceName, table string, data CSV) Node {
	r := &resource{kind: kindSource, name: table, sourceName: sourceName}
	for i := range r.sides {
		r.sides[i] = &sideSpec{code: string(data), config: map[string]any{}}
	}
	return p.add(r)
}

// Exposure declares a dashboard exposure using the given models (by name)
// on both sides. Use Base()/Current() with Uses to make them differ.
func (p *Project) Exposure(name string, models ...string) Node {
	r := &resource{kind: kindExposure, name: name}
	for i := range r.sides {
		r.sides[i] = &sideSpec{config: map[string]any{}, dependsOn: append([]string(nil), models...)}
	}
	return p.add(r)
}

// Uses replaces the models an exposure depends on.
func (n Node) Uses(models ...string) Node {
	return n.each(func(s *sideSpec) { s.dependsOn = append([]string(nil), models...) })
}

// macroSpec is a scenario macro.
type macroSpec struct {
	name   string
	params []string
	bodies [2]string
}

// Macro declares a macro of the root project. signature is "name(arg, ...)";
// the bodies are expressions that may use {{ arg }} and differ between the
// sides ("" = absent). Models call it as {{ name('column') }}: string
// arguments are substituted without quotes, as Jinja renders them.
func (p *Project) Macro(signature, base, current string) *Project {
	name, rest, ok := strings.Cut(signature, "(")
	if !ok || !strings.HasSuffix(rest, ")") {
		p.errorf("dbtfixture: macro signature %q must look like name(arg, ...)", signature)
		return p
	}
	m := &macroSpec{name: strings.TrimSpace(name), bodies: [2]string{base, current}}
	for _, a := range strings.Split(strings.TrimSuffix(rest, ")"), ",") {
		if a = strings.TrimSpace(a); a != "" {
			m.params = append(m.params, a)
		}
	}
	p.macros = append(p.macros, m)
	return p
}

// Node configures a declared resource. Its methods apply to the sides it
// selects: both by default, one after Base() or Current(). They return the
// Node so that calls chain.
type Node struct {
	p    *Project
	r    *resource
	mask Side
}

// Base restricts the following settings to the base side.
func (n Node) Base() Node { n.mask = Base; return n }

// Current restricts the following settings to the current side.
func (n Node) Current() Node { n.mask = Current; return n }

// Both makes the following settings apply to both sides again.
func (n Node) Both() Node { n.mask = Both; return n }

func (n Node) each(f func(*sideSpec)) Node {
	for i, s := range sidesInOrder {
		if n.mask&s != 0 && n.r.sides[i] != nil {
			f(n.r.sides[i])
		}
	}
	return n
}

// Tests attaches generic tests (and documents their columns).
func (n Node) Tests(tests ...TestSpec) Node {
	return n.each(func(s *sideSpec) { s.tests = append(s.tests, tests...) })
}

// Materialized sets the materialization explicitly.
func (n Node) Materialized(m Materialization) Node {
	if m == Snapshot || n.r.kind == kindSnapshot {
		if n.mask != Both || n.r.kind == kindSeed || n.r.kind == kindSource || n.r.kind == kindExposure {
			n.p.errorf("dbtfixture: %s %q: only a model can become a snapshot, and on both sides at once", n.r.kind, n.r.name)
			return n
		}
		if m != Snapshot {
			n.p.errorf("dbtfixture: snapshot %q cannot change materialization", n.r.name)
			return n
		}
		n.r.kind = kindSnapshot
	}
	name, keys := m.parts()
	return n.each(func(s *sideSpec) {
		s.mat, s.matExplicit, s.uniqueKey = Materialization(name), true, keys
	})
}

// Package puts the resource in another dbt package (both sides).
func (n Node) Package(pkg string) Node {
	n.r.pkg = pkg
	return n
}

// Dir puts a model in a sub-directory of models/ (e.g. "staging"), which
// shows in its path and fqn (both sides).
func (n Node) Dir(dir string) Node {
	n.r.dir = strings.Trim(dir, "/")
	return n
}

// Tags sets config.tags.
func (n Node) Tags(tags ...string) Node {
	return n.each(func(s *sideSpec) { s.tags = append([]string(nil), tags...) })
}

// Disabled sets enabled: false: the node is listed under the manifest's
// "disabled" key and not built.
func (n Node) Disabled() Node {
	return n.each(func(s *sideSpec) { s.disabled = true })
}

// Config sets any config key (persist_docs, meta, grants, on_schema_change,
// unique_key, alias, ...). It also appears in unrendered_config, as every
// explicitly set key does.
func (n Node) Config(key string, value any) Node {
	switch key {
	case "materialized":
		if m, ok := value.(string); ok {
			return n.Materialized(Materialization(m))
		}
	case "tags":
		return n.Tags(toStrings(value)...)
	case "enabled":
		if b, ok := value.(bool); ok && !b {
			return n.Disabled()
		}
		return n
	}
	return n.each(func(s *sideSpec) {
		if key == "unique_key" {
			s.uniqueKey = toStrings(value)
		}
		if key == "alias" {
			if a, ok := value.(string); ok {
				s.alias = a
			}
		}
		if _, seen := s.config[key]; !seen {
			s.order = append(s.order, key)
		}
		s.config[key] = value
	})
}

// ContractEnforced sets contract: {enforced: true}. Document typed columns
// with Columns(Col(...).Type(...)).
func (n Node) ContractEnforced() Node {
	return n.each(func(s *sideSpec) { s.contract = true })
}

// Columns documents columns (merged with tested columns).
func (n Node) Columns(cols ...ColumnDoc) Node {
	return n.each(func(s *sideSpec) { s.columns = append(s.columns, cols...) })
}

// Describe sets the description.
func (n Node) Describe(description string) Node {
	return n.each(func(s *sideSpec) { s.description = description })
}

// Alias sets config.alias: the relation's name in the warehouse.
func (n Node) Alias(alias string) Node { return n.Config("alias", alias) }

func toStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
