package diff

// What impact analysis needs from the warehouse beyond the diff
// operations: one aggregate per relation that counts its rows and checks a
// key, and column metadata answered from catalog.json instead of a
// round trip per relation.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// SideStats is a model's row count in one environment and, when keys were
// checked, how many key values repeat and how many rows have a NULL key.
type SideStats struct {
	Rows *int64
	// Meta says why Rows is missing (the row_count_diff statuses).
	Meta          RowCountMeta
	DuplicateKeys int64
	NullKeys      int64
}

// KeyUnique reports whether checked keys are unique and never NULL.
func (s SideStats) KeyUnique() bool { return s.Rows != nil && s.DuplicateKeys == 0 && s.NullKeys == 0 }

// Stats counts a model's rows in one environment and, when keys are
// given, checks them in the same scan (duplicate key values and NULL keys),
// so that verifying a key costs what counting the rows costs. Like
// row_count_diff it turns a missing node, relation or permission into a
// status (seeds are counted too); a key that cannot be checked (e.g. a
// column missing on that side) is an error.
func Stats(ctx context.Context, env Env, model string, s Side, keys []string) (SideStats, error) {
	d, err := env.needWarehouse()
	if err != nil {
		return SideStats{}, err
	}
	n, err := findNode(env.manifest(s), model)
	if err != nil {
		return SideStats{}, err
	}
	if n == nil {
		return SideStats{Meta: RowCountMeta{Status: StatusNotInManifest, Message: fmt.Sprintf("Model '%s' not found in %s manifest", model, s)}}, nil
	}
	if err := env.checkRelation(n, s); err != nil {
		return SideStats{Meta: RowCountMeta{Status: StatusUnsupportedMaterialization, Message: err.Error()}}, nil
	}
	rel := relationSQL(d, n)
	r, err := env.Conn.Query(ctx, statsSQL(d, rel, keys), warehouse.QueryOptions{Limit: 1})
	if err != nil {
		if ctx.Err() != nil {
			return SideStats{}, ctx.Err()
		}
		// row_count_diff's count names a missing relation or a permission
		// problem as a status; when it works the key itself is the problem.
		rows, meta, cerr := env.countSide(ctx, n.Name, s)
		if cerr != nil {
			return SideStats{}, cerr
		}
		if meta.Status == StatusTableNotFound || meta.Status == StatusPermissionDenied {
			return SideStats{Rows: rows, Meta: meta}, nil
		}
		if len(keys) == 0 {
			return SideStats{}, env.wrapErr(fmt.Sprintf("counting rows of %s in the %s environment", rel, s), err)
		}
		return SideStats{}, env.wrapErr(fmt.Sprintf("checking the key %s of %s in the %s environment", strings.Join(keys, ", "), rel, s), err)
	}
	row, err := one(r)
	if err != nil {
		return SideStats{}, fmt.Errorf("counting rows of %s: %w", rel, err)
	}
	rows := toInt(row[0])
	st := SideStats{Rows: &rows, Meta: RowCountMeta{Status: StatusOK}}
	if len(keys) > 0 {
		st.DuplicateKeys, st.NullKeys = toInt(row[1]), toInt(row[2])
	}
	return st, nil
}

// statsSQL counts rows, and with keys groups by them first: the row count
// is then the sum of the group sizes, duplicates are groups of more than
// one row and NULL keys the rows of groups with a NULL key part.
func statsSQL(d sqlDialect, rel string, keys []string) string {
	if len(keys) == 0 {
		return "SELECT COUNT(*) AS row_count FROM " + rel
	}
	q := make([]string, len(keys))
	nulls := make([]string, len(keys))
	for i, k := range keys {
		q[i] = d.q(k)
		nulls[i] = d.q(k) + " IS NULL"
	}
	kl := strings.Join(q, ", ")
	return "SELECT COALESCE(SUM(ripple_n), 0) AS row_count, " + d.CountIf("ripple_n > 1") + " AS duplicate_keys, " +
		"COALESCE(SUM(CASE WHEN " + strings.Join(nulls, " OR ") + " THEN ripple_n ELSE 0 END), 0) AS null_keys\n" +
		"FROM (SELECT " + kl + ", COUNT(*) AS ripple_n FROM " + rel + " GROUP BY " + kl + ") ripple_k"
}

// SameRelation reports whether a model's base and current builds are the
// same relation in the warehouse (both targets write to one schema, or the
// base was deferred to the current build). Comparing such a model always
// shows no change, which must not be read as "no change". Sources are
// shared by both builds by design and never count.
func SameRelation(env Env, model string) (string, bool) {
	if env.Project == nil || env.Dialect == nil {
		return "", false
	}
	b, _ := findNode(env.manifest(Base), model)
	c, _ := findNode(env.manifest(Current), model)
	return sameRelation(env.Dialect, b, c)
}

func sameRelation(d dialect.Dialect, b, c *dbt.Node) (string, bool) {
	if b == nil || c == nil || d == nil || c.ResourceType == dbt.Source || c.Materialized() == "ephemeral" {
		return "", false
	}
	if _, _, _, err := b.RelationParts(d.Name()); err != nil {
		return "", false // no relation to read (checkRelation says so)
	}
	if _, _, _, err := c.RelationParts(d.Name()); err != nil {
		return "", false
	}
	br, cr := relationSQL(d, b), relationSQL(d, c)
	return cr, strings.EqualFold(br, cr)
}

// ErrSameRelation is wrapped by a diff refused because base and current
// are one table.
var ErrSameRelation = errors.New("base and current are the same table")

// RebuildBaseHint says how to give the base build its own relations.
const RebuildBaseHint = "build base into its own schema: dbt run --target prod && dbt docs generate --target prod --target-path target-base"

// checkDistinct refuses to compare a model whose base and current builds
// are the same relation: the diff would report "no change" from one table
// read twice. Without a base build (single-env mode) base is current by
// design and the results carry that warning instead.
func (e Env) checkDistinct(name string, b, c *dbt.Node) error {
	if e.Project != nil && e.Project.SingleEnv {
		return nil
	}
	if rel, same := sameRelation(e.Dialect, b, c); same {
		return fmt.Errorf("%w: %s resolves to %s in both builds, so comparing it cannot show a change; %s", ErrSameRelation, name, rel, RebuildBaseHint)
	}
	return nil
}

// WithCatalogColumns returns env whose Columns answers from the two builds'
// catalog.json for the relations they describe, so a value diff costs no
// metadata round trip; relations the catalogs do not cover still ask the
// warehouse. The catalog can be older than the warehouse: callers that get
// a failure should retry with the plain env (see CatalogStale).
func WithCatalogColumns(env Env) Env {
	if env.Conn == nil || env.Project == nil {
		return env
	}
	cc := &catalogConn{Querier: env.Conn, cols: map[string][]warehouse.Column{}}
	for _, e := range []*dbt.Env{env.Project.Base, env.Project.Current} {
		if e == nil || e.Catalog == nil {
			continue
		}
		for id, n := range e.Manifest.AllNodes() {
			ce, ok := e.Catalog.Entry(id)
			if !ok || len(ce.Columns) == 0 {
				continue
			}
			cols := make([]warehouse.Column, 0, len(ce.Columns))
			for _, c := range ce.SortedColumns() {
				cols = append(cols, warehouse.Column{Name: c.Name, Type: c.Type})
			}
			cc.cols[relationKey(env.relationOf(n))] = cols
		}
	}
	env.Conn = cc
	return env
}

// CatalogStale reports whether the catalog's columns of a model differ from
// the warehouse's on either side: one metadata query per side, run only
// after a failure to decide whether a retry with live columns can help.
func CatalogStale(ctx context.Context, env Env, model string) bool {
	cc, ok := env.Conn.(*catalogConn)
	if !ok {
		return false
	}
	for _, s := range []Side{Base, Current} {
		n, _ := findNode(env.manifest(s), model)
		if n == nil {
			continue
		}
		rel := env.relationOf(n)
		cat, ok := cc.cols[relationKey(rel)]
		if !ok {
			continue
		}
		live, err := cc.Querier.Columns(ctx, rel)
		if err != nil || len(live) != len(cat) {
			return true
		}
		for i := range live {
			if !strings.EqualFold(live[i].Name, cat[i].Name) {
				return true
			}
		}
	}
	return false
}

// WithoutCatalogColumns undoes WithCatalogColumns.
func WithoutCatalogColumns(env Env) Env {
	if cc, ok := env.Conn.(*catalogConn); ok {
		env.Conn = cc.Querier
	}
	return env
}

type catalogConn struct {
	Querier
	cols map[string][]warehouse.Column
}

func (c *catalogConn) Columns(ctx context.Context, rel warehouse.Relation) ([]warehouse.Column, error) {
	if cols, ok := c.cols[relationKey(rel)]; ok {
		return cols, nil
	}
	return c.Querier.Columns(ctx, rel)
}

func relationKey(r warehouse.Relation) string {
	return strings.ToLower(r.Database + "\x00" + r.Schema + "\x00" + r.Name)
}
