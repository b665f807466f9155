// Package diff implements Ripple's data-diff operations: row counts, schema,
// ad-hoc queries, profiles, value diffs, top-k and histograms, each comparing
// the base and the current build of a dbt project. Both builds live in one
// warehouse (two schemas), so every comparison that needs rows from both sides
// runs as SQL in the warehouse; Go only holds capped result sets.
package diff

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// Querier is the subset of warehouse.Conn the diff operations use.
type Querier interface {
	// Query runs one read-only statement and returns at most opts.Limit rows.
	Query(ctx context.Context, sql string, opts warehouse.QueryOptions) (*warehouse.Result, error)
	// Columns returns the physical columns of a relation in warehouse order.
	Columns(ctx context.Context, rel warehouse.Relation) ([]warehouse.Column, error)
	// Dialect names the SQL dialect (duckdb, postgres, snowflake, ...).
	Dialect() string
}

// Selection is a dbt node selection as the inputs spell it.
type Selection struct {
	Select, Exclude string
	// Packages restricts to these packages (default: the root project's).
	Packages []string
	// ViewMode "changed_models" keeps 1+state:modified+ only.
	ViewMode string
	// AllowEmpty accepts terms that name nothing in the project.
	AllowEmpty bool
}

// IsZero reports whether nothing is selected explicitly.
func (s Selection) IsZero() bool {
	return s.Select == "" && s.Exclude == "" && len(s.Packages) == 0 && s.ViewMode == ""
}

// Progress is a progress report of a long-running operation.
type Progress struct {
	Op         string  `json:"op"`
	Message    string  `json:"message"`
	Percentage float64 `json:"percentage"`
}

// Env is everything an operation needs: the two builds, the warehouse and how
// to spell SQL for it. Conn and Dialect may be nil for metadata-only
// operations (schema_diff).
type Env struct {
	Project *dbt.Project
	Conn    Querier
	Dialect dialect.Dialect
	// Select resolves a dbt selection to unique ids. It is needed only when
	// an input uses select, exclude, packages or view_mode.
	Select func(Selection) ([]string, error)
	// Progress, when set, receives progress reports of long operations.
	Progress func(Progress)
}

// Side names one build.
type Side string

// The two sides of every comparison.
const (
	Base    Side = "base"
	Current Side = "current"
)

func (e Env) env(s Side) *dbt.Env {
	if e.Project == nil {
		return nil
	}
	if s == Base {
		return e.Project.Base
	}
	return e.Project.Current
}

func (e Env) manifest(s Side) *dbt.Manifest {
	if en := e.env(s); en != nil {
		return en.Manifest
	}
	return nil
}

func (e Env) progress(op, msg string, pct float64) {
	if e.Progress != nil {
		e.Progress(Progress{Op: op, Message: msg, Percentage: pct})
	}
}

func (e Env) warning() string {
	if e.Project != nil && e.Project.SingleEnv {
		return dbt.SingleEnvWarning
	}
	return ""
}

func (e Env) needProject() error {
	if e.Project == nil || e.Project.Current == nil || e.Project.Current.Manifest == nil || e.Project.Base == nil || e.Project.Base.Manifest == nil {
		return errors.New("no dbt project loaded: run `dbt docs generate` (and `dbt docs generate --target-path target-base` on the base branch) first")
	}
	return nil
}

func (e Env) needWarehouse() (sqlDialect, error) {
	if err := e.needProject(); err != nil {
		return sqlDialect{}, err
	}
	if e.Conn == nil || e.Dialect == nil {
		return sqlDialect{}, errors.New("no warehouse connection: configure the dbt profile's target so Ripple can connect")
	}
	return sqlDialect{Dialect: e.Dialect}, nil
}

// relationKinds are the resource types that have a relation in the warehouse.
var relationKinds = map[string]int{dbt.Model: 0, dbt.Snapshot: 1, dbt.Seed: 2, dbt.Source: 3}

// findNode resolves a model argument (unique id or name) in one manifest;
// nil, nil when nothing matches.
func findNode(m *dbt.Manifest, name string) (*dbt.Node, error) {
	if m == nil {
		return nil, nil
	}
	n, err := m.Lookup(name)
	if errors.Is(err, dbt.ErrNotFound) {
		return nil, nil
	}
	return n, err
}

func (e Env) unknownModelError(name string) error {
	var names []string
	for _, s := range []Side{Current, Base} {
		m := e.manifest(s)
		if m == nil {
			continue
		}
		for _, n := range m.AllNodes() {
			if _, ok := relationKinds[n.ResourceType]; ok {
				names = append(names, n.Name)
			}
		}
	}
	sort.Strings(names)
	if sfx := dbt.SuggestSuffix(name, names); sfx != "" {
		return dbt.NotFoundf("model %q was not found in the base or current manifest%s", name, sfx)
	}
	return dbt.NotFoundf("model %q was not found in the base or current manifest; pass a model name or unique id (e.g. model.my_project.customers)", name)
}

// target is a model resolved on both sides.
type target struct {
	Name    string
	Base    *dbt.Node // nil when absent from the base manifest
	Current *dbt.Node // nil when absent from the current manifest
}

func (t target) node(s Side) *dbt.Node {
	if s == Base {
		return t.Base
	}
	return t.Current
}

// resolveModel resolves a single model argument on both sides. Unknown names
// fail with the closest matches.
func (e Env) resolveModel(name string) (target, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return target{}, errors.New("model is required: pass a model name or unique id")
	}
	t := target{Name: name}
	var err error
	if t.Base, err = findNode(e.manifest(Base), name); err != nil {
		return t, err
	}
	if t.Current, err = findNode(e.manifest(Current), name); err != nil {
		return t, err
	}
	if t.Base == nil && t.Current == nil {
		return t, e.unknownModelError(name)
	}
	if t.Current != nil {
		t.Name = t.Current.Name
	} else {
		t.Name = t.Base.Name
	}
	return t, nil
}

// relationSQL is the quoted relation of a node for use in SQL: the parts
// of its relation_name, re-quoted for the dialect. A relation_name that is
// not a relation name is refused by checkRelation before any SQL is built;
// should one reach here, it becomes a single quoted identifier (a table that
// does not exist), never SQL text.
func relationSQL(d dialect.Dialect, n *dbt.Node) string {
	db, schema, name, err := n.RelationParts(d.Name())
	if err != nil {
		return d.QuoteIdent(n.RelationName)
	}
	return d.QuoteRelation(db, schema, name)
}

func (e Env) relationOf(n *dbt.Node) warehouse.Relation {
	db, schema, name, err := n.RelationParts(e.dialectName())
	if err != nil {
		return warehouse.Relation{Database: n.Database, Schema: n.Schema, Name: n.RelationIdentifier()}
	}
	return warehouse.Relation{Database: db, Schema: schema, Name: name}
}

// checkRelation is checkRelational plus a valid relation_name.
func (e Env) checkRelation(n *dbt.Node, s Side) error {
	if err := checkRelational(n, s); err != nil {
		return err
	}
	if _, _, _, err := n.RelationParts(e.dialectName()); err != nil {
		return fmt.Errorf("in the %s manifest, %w", s, err)
	}
	return nil
}

// checkRelational verifies that a node has a relation to query.
func checkRelational(n *dbt.Node, s Side) error {
	if _, ok := relationKinds[n.ResourceType]; !ok {
		return fmt.Errorf("%s is a %s, which has no table to query in the %s environment; pass a model, seed, snapshot or source", n.UniqueID, n.ResourceType, s)
	}
	if n.Materialized() == "ephemeral" {
		return fmt.Errorf("%s is materialized as ephemeral, so it has no table in the %s environment; materialize it as a view or table to diff its data", n.UniqueID, s)
	}
	return nil
}

// bothRelations resolves a model on both sides and requires a relation on each.
func (e Env) bothRelations(name string) (target, error) {
	t, err := e.resolveModel(name)
	if err != nil {
		return t, err
	}
	for _, s := range []Side{Base, Current} {
		n := t.node(s)
		if n == nil {
			return t, fmt.Errorf("model %q is not in the %s manifest (it was added or removed), so it cannot be compared; use query with base=%v to look at the side that has it", t.Name, s, s == Current)
		}
		if err := e.checkRelation(n, s); err != nil {
			return t, err
		}
	}
	return t, e.checkDistinct(t.Name, t.Base, t.Current)
}

// physicalColumns fetches the live columns of a node's relation.
func (e Env) physicalColumns(ctx context.Context, n *dbt.Node, s Side) ([]warehouse.Column, error) {
	cols, err := e.Conn.Columns(ctx, e.relationOf(n))
	if err != nil {
		return nil, e.wrapErr(fmt.Sprintf("reading the columns of %s in the %s environment", relationSQL(e.Dialect, n), s), err)
	}
	if len(cols) == 0 {
		return nil, &warehouse.Error{Class: warehouse.ClassTableNotFound, Message: fmt.Sprintf("%s has no columns in the %s environment", relationSQL(e.Dialect, n), s)}
	}
	return cols, nil
}

// matchColumn finds a physical column by name: exact match first, then
// case-insensitive (Snowflake folds unquoted names to upper case).
func matchColumn(cols []warehouse.Column, name string) (warehouse.Column, bool) {
	name = strings.Trim(strings.TrimSpace(name), "\"`")
	for _, c := range cols {
		if c.Name == name {
			return c, true
		}
	}
	for _, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return warehouse.Column{}, false
}

func columnNames(cols []warehouse.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// missingColumnError names the closest columns first: a typo is the
// likely cause.
func missingColumnError(model string, s Side, name string, cols []warehouse.Column) error {
	return dbt.NotFoundf("column %q does not exist in %s in the %s environment%s", name, model, s, ColumnHint(name, columnNames(cols)))
}

// maxListedColumns caps the column list of ColumnHint.
const maxListedColumns = 30

// ColumnHint ends an unknown-column error: the closest columns, then the
// columns there are ("; did you mean "amount"? Its columns are a, b").
func ColumnHint(name string, columns []string) string {
	list, more := columns, ""
	if len(list) > maxListedColumns {
		list, more = list[:maxListedColumns], fmt.Sprintf(" and %d more", len(columns)-maxListedColumns)
	}
	if s := dbt.SuggestSuffix(name, columns); s != "" {
		return s + " Its columns are " + strings.Join(list, ", ") + more
	}
	return "; its columns are " + strings.Join(list, ", ") + more
}

// dialectName names the dialect for relation parsing and messages.
func (e Env) dialectName() string {
	if e.Dialect != nil {
		return e.Dialect.Name()
	}
	if e.Conn != nil {
		return e.Conn.Dialect()
	}
	return "warehouse"
}
