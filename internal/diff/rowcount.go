package diff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

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
	NodeNames  []string `json:"node_names,omitempty" jsonschema:"model names to count"`
	NodeIDs    []string `json:"node_ids,omitempty" jsonschema:"unique ids to count"`
	Select     string   `json:"select,omitempty" jsonschema:"dbt selector, when no node_names/node_ids."`
	Exclude    string   `json:"exclude,omitempty" jsonschema:"dbt selector to exclude"`
	Packages   []string `json:"packages,omitempty" jsonschema:"packages (default: root project; all if it has no models)"`
	ViewMode   string   `json:"view_mode,omitempty" enum:"all,changed_models" jsonschema:"changed_models: only 1+state:modified+"`
	AllowEmpty bool     `json:"allow_empty,omitempty" jsonschema:"accept a select/exclude term naming nothing (default: error)"`
}

func (in RowCountDiffInput) selection() Selection {
	return Selection{Select: in.Select, Exclude: in.Exclude, Packages: in.Packages, ViewMode: in.ViewMode, AllowEmpty: in.AllowEmpty}
}

// RowCountMeta says why a count is or is not available.
type RowCountMeta struct {
	Status  string `json:"status" jsonschema:"ok or why the count is null (see the tool description)"`
	Message string `json:"message,omitempty" jsonschema:"why, and how to fix it"`
}

// RowCount is one model's counts in both environments. Current and
// CurrentMeta are the peer's curr and curr_meta.
type RowCount struct {
	Base        *int64       `json:"base" jsonschema:"base rows, or null"`
	Current     *int64       `json:"curr" jsonschema:"current rows, or null"`
	BaseMeta    RowCountMeta `json:"base_meta" jsonschema:"status of the base count"`
	CurrentMeta RowCountMeta `json:"curr_meta" jsonschema:"status of the current count"`
}

// RowCountDiffResult maps model names to their counts. Its JSON is flat, as
// the peer's: {"<model>": RowCount, ..., "run_id": "..."}. A model literally
// named run_id or _warning keeps its key; the run_id is then left out.
type RowCountDiffResult struct {
	// RunID identifies the recorded run when the checks state keeps runs.
	RunID   string
	Models  map[string]*RowCount
	Warning string
}

// MarshalJSON writes the flat map.
func (r *RowCountDiffResult) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(r.Models)+2)
	for k, v := range r.Models {
		m[k] = v
	}
	if _, clash := m["run_id"]; !clash && r.RunID != "" {
		m["run_id"] = r.RunID
	}
	if _, clash := m["_warning"]; !clash && r.Warning != "" {
		m["_warning"] = r.Warning
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the flat map.
func (r *RowCountDiffResult) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*r = RowCountDiffResult{Models: make(map[string]*RowCount, len(m))}
	for k, v := range m {
		if k == "run_id" || k == "_warning" {
			var s string
			if json.Unmarshal(v, &s) == nil {
				if k == "run_id" {
					r.RunID = s
				} else {
					r.Warning = s
				}
				continue
			}
		}
		var rc RowCount
		if err := json.Unmarshal(v, &rc); err != nil {
			return fmt.Errorf("row count of %s: %w", k, err)
		}
		r.Models[k] = &rc
	}
	return nil
}

// JSONSchema describes the flat map.
func (*RowCountDiffResult) JSONSchema() *jsonschema.Schema {
	rc, err := jsonschema.For[RowCount](nil)
	if err != nil {
		panic(err) // a static type: cannot fail
	}
	rc.Description = "the model's counts"
	return &jsonschema.Schema{
		Type:        "object",
		Description: "{<model name>: counts}",
		Properties: map[string]*jsonschema.Schema{
			"run_id":   {Type: "string", Description: "recorded run, to cite"},
			"_warning": {Type: "string", Description: "single-env notice"},
		},
		PropertyOrder:        []string{"run_id", "_warning"},
		AdditionalProperties: rc,
	}
}

// Mismatch is the CI verdict: true when a model's count differs (including
// a count on one side only, an added or removed model). A count that could
// not be taken (table_not_found, permission_denied) or a name in neither
// manifest makes the verdict unknown: an error, never a pass.
func (r *RowCountDiffResult) Mismatch() (bool, error) {
	names := make([]string, 0, len(r.Models))
	for n := range r.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	var unknown []string
	mismatch := false
	for _, n := range names {
		c := r.Models[n]
		unsupported := func(m RowCountMeta) bool {
			return m.Status == StatusUnsupportedResourceType || m.Status == StatusUnsupportedMaterialization
		}
		switch {
		case c.BaseMeta.Status == StatusTableNotFound || c.BaseMeta.Status == StatusPermissionDenied:
			unknown = append(unknown, n+" (base: "+c.BaseMeta.Status+")")
		case c.CurrentMeta.Status == StatusTableNotFound || c.CurrentMeta.Status == StatusPermissionDenied:
			unknown = append(unknown, n+" (current: "+c.CurrentMeta.Status+")")
		case c.BaseMeta.Status == StatusNotInManifest && c.CurrentMeta.Status == StatusNotInManifest:
			unknown = append(unknown, n+" (in neither manifest)")
		case unsupported(c.BaseMeta) && unsupported(c.CurrentMeta):
			// Not countable on either side by design (e.g. ephemeral): nothing to compare.
		case (c.Base == nil) != (c.Current == nil) || (c.Base != nil && *c.Base != *c.Current):
			mismatch = true
		}
	}
	if len(unknown) > 0 {
		return mismatch, fmt.Errorf("row counts could not be compared for %s", strings.Join(unknown, ", "))
	}
	return mismatch, nil
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
		b, _ := findNode(env.manifest(Base), name)
		c, _ := findNode(env.manifest(Current), name)
		if err := env.checkDistinct(name, b, c); err != nil {
			return nil, err
		}
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
				return nil, dbt.NotFoundf("node id %q is not in the base or current manifest%s", id, e.suggestID(id))
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
	ids, err := e.Select(in.selection())
	if err != nil {
		return nil, err // the selector's errors name select or exclude
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

// suggestName is suggestID over node names, for a name with a typo.
func (e Env) suggestName(name string) string {
	var names []string
	for _, s := range []Side{Current, Base} {
		if m := e.manifest(s); m != nil {
			for _, n := range m.AllNodes() {
				if n.ResourceType != dbt.Test && n.ResourceType != dbt.UnitTest {
					names = append(names, n.Name)
				}
			}
		}
	}
	sort.Strings(names)
	return dbt.SuggestSuffix(name, names)
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
