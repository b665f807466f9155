package diff

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// Row count statuses.
const (
	StatusOK                         = "ok"
	StatusNotInManifest              = "not_in_manifest"
	StatusUnsupportedResourceType    = "unsupported_resource_type"
	StatusUnsupportedMaterialization = "unsupported_materialization"
	StatusTableNotFound              = "table_not_found"
	StatusPermissionDenied           = "permission_denied"
)

// RowCountDiffInput selects the models to count.
type RowCountDiffInput struct {
	NodeNames []string `json:"node_names,omitempty" jsonschema:"model names to count (e.g. customers)"`
	NodeIDs   []string `json:"node_ids,omitempty" jsonschema:"unique ids to count (e.g. model.jaffle_shop.customers)"`
	Select    string   `json:"select,omitempty" jsonschema:"dbt selector used when node_names and node_ids are empty (e.g. state:modified+)"`
	Exclude   string   `json:"exclude,omitempty" jsonschema:"dbt selector of nodes to leave out"`
}

// RowCountMeta says why a count is or is not available.
type RowCountMeta struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// RowCount is one model's counts in both environments.
type RowCount struct {
	Base        *int64       `json:"base"`
	Current     *int64       `json:"current"`
	BaseMeta    RowCountMeta `json:"base_meta"`
	CurrentMeta RowCountMeta `json:"current_meta"`
}

// RowCountDiffResult maps model names to their counts.
type RowCountDiffResult struct {
	// RunID identifies the recorded run when the checks state keeps runs.
	RunID   string               `json:"run_id,omitempty"`
	Models  map[string]*RowCount `json:"models"`
	Warning string               `json:"_warning,omitempty"`
}

// RowCountDiff counts the rows of models (tables, views, incremental models,
// snapshots) in both environments. A model missing on one side, or a table
// that cannot be read, gets a status instead of failing the call; only
// unexpected warehouse errors and cancellation fail it.
func RowCountDiff(ctx context.Context, env Env, in RowCountDiffInput) (*RowCountDiffResult, error) {
	if _, err := env.needWarehouse(); err != nil {
		return nil, err
	}
	names, err := env.rowCountNames(in)
	if err != nil {
		return nil, err
	}
	res := &RowCountDiffResult{Models: make(map[string]*RowCount, len(names)), Warning: env.warning()}
	for i, name := range names {
		env.progress("row_count_diff", "counting "+name, float64(i)/float64(len(names)))
		rc := &RowCount{}
		if rc.Base, rc.BaseMeta, err = env.countSide(ctx, name, Base); err != nil {
			return nil, err
		}
		if rc.Current, rc.CurrentMeta, err = env.countSide(ctx, name, Current); err != nil {
			return nil, err
		}
		if rc.BaseMeta.Status == StatusNotInManifest && rc.CurrentMeta.Status == StatusNotInManifest {
			hint := strings.TrimPrefix(env.unknownModelError(name).Error(), fmt.Sprintf("model %q was not found in the base or current manifest", name))
			rc.BaseMeta.Message += hint
			rc.CurrentMeta.Message += hint
		}
		res.Models[name] = rc
	}
	env.progress("row_count_diff", "done", 1)
	return res, nil
}

// rowCountNames lists the model names to count: explicit names and ids, else
// the selector's models, snapshots and seeds.
func (e Env) rowCountNames(in RowCountDiffInput) ([]string, error) {
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(in.NodeNames) > 0 || len(in.NodeIDs) > 0 {
		for _, id := range in.NodeIDs {
			n := e.nodeByID(id)
			if n == nil {
				return nil, fmt.Errorf("node id %q is not in the base or current manifest%s", id, e.suggestID(id))
			}
			add(n.Name)
		}
		for _, n := range in.NodeNames {
			add(strings.TrimSpace(n))
		}
		return names, nil
	}
	if e.Select == nil {
		return nil, errors.New("row_count_diff needs node_names, node_ids or a select expression")
	}
	sel := in.Select
	ids, err := e.Select(sel, in.Exclude)
	if err != nil {
		return nil, fmt.Errorf("resolving select %q exclude %q: %w", sel, in.Exclude, err)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if !(strings.HasPrefix(id, "model.") || strings.HasPrefix(id, "snapshot.") || strings.HasPrefix(id, "seed.")) {
			continue
		}
		if n := e.nodeByID(id); n != nil {
			add(n.Name)
		}
	}
	return names, nil
}

func (e Env) nodeByID(id string) *dbt.Node {
	for _, s := range []Side{Current, Base} {
		if m := e.manifest(s); m != nil {
			if n, ok := m.Node(id); ok {
				return n
			}
		}
	}
	return nil
}

func (e Env) suggestID(id string) string {
	var ids []string
	for _, s := range []Side{Current, Base} {
		if m := e.manifest(s); m != nil {
			for k := range m.AllNodes() {
				ids = append(ids, k)
			}
		}
	}
	sort.Strings(ids)
	return dbt.SuggestSuffix(id, ids)
}

func (e Env) countSide(ctx context.Context, name string, s Side) (*int64, RowCountMeta, error) {
	n, err := findNode(e.manifest(s), name)
	if err != nil {
		return nil, RowCountMeta{}, err
	}
	if n == nil {
		return nil, RowCountMeta{Status: StatusNotInManifest, Message: fmt.Sprintf("Model '%s' not found in %s manifest", name, s)}, nil
	}
	if n.ResourceType != dbt.Model && n.ResourceType != dbt.Snapshot {
		return nil, RowCountMeta{Status: StatusUnsupportedResourceType,
			Message: fmt.Sprintf("%s is a %s; row counts are computed for models and snapshots only (query it with `select count(*) from {{ source(...) }}` or `{{ ref(...) }}` instead)", n.UniqueID, n.ResourceType)}, nil
	}
	switch m := n.Materialized(); m {
	case "", "table", "view", "incremental", "snapshot", "materialized_view", "dynamic_table":
	default:
		return nil, RowCountMeta{Status: StatusUnsupportedMaterialization,
			Message: fmt.Sprintf("%s is materialized as %s, which creates no relation to count; materialize it as a view or table to count it", n.UniqueID, m)}, nil
	}
	if _, _, _, err := n.RelationParts(e.Dialect.Name()); err != nil {
		return nil, RowCountMeta{}, fmt.Errorf("in the %s manifest, %w", s, err)
	}
	rel := relationSQL(e.Dialect, n)
	r, err := e.Conn.Query(ctx, "SELECT COUNT(*) AS row_count FROM "+rel, warehouse.QueryOptions{Limit: 1})
	if err != nil {
		if ctx.Err() != nil {
			return nil, RowCountMeta{}, ctx.Err()
		}
		switch warehouse.Classify(err) {
		case warehouse.ClassPermissionDenied:
			return nil, RowCountMeta{Status: StatusPermissionDenied,
				Message: fmt.Sprintf("Permission denied when accessing %s in the %s environment: the warehouse user lacks permission to read it; grant SELECT on it (%v)", rel, s, err)}, nil
		case warehouse.ClassTableNotFound:
			return nil, RowCountMeta{Status: StatusTableNotFound,
				Message: fmt.Sprintf("Table '%s' not found in %s database. This usually means stale dbt artifacts or an environment configuration issue: rebuild the model with `dbt run` and regenerate the artifacts; report it rather than treating it as a data change (%v)", rel, s, err)}, nil
		}
		return nil, RowCountMeta{}, e.wrapErr(fmt.Sprintf("counting rows of %s in the %s environment", rel, s), err)
	}
	row, err := one(r)
	if err != nil {
		return nil, RowCountMeta{}, fmt.Errorf("counting rows of %s: %w", rel, err)
	}
	c := toInt(row[0])
	return &c, RowCountMeta{Status: StatusOK}, nil
}
