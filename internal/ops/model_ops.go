package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// GetModelInput names a model.
type GetModelInput struct {
	ModelID string `json:"model_id" jsonschema:"unique id (e.g. model.jaffle_shop.customers) or model name"`
}

// ModelColumn is a physical column with its tested constraints.
type ModelColumn struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	NotNull bool   `json:"not_null,omitempty"`
	Unique  bool   `json:"unique,omitempty"`
}

// ModelSide is a model as one build knows it; empty when absent.
type ModelSide struct {
	UniqueID     string                  `json:"unique_id,omitempty"`
	Columns      map[string]*ModelColumn `json:"columns,omitempty"`
	ColumnOrder  []string                `json:"column_order,omitempty"`
	PrimaryKey   string                  `json:"primary_key,omitempty"`
	PrimaryKeys  *dbt.PrimaryKey         `json:"primary_key_detail,omitempty"`
	Materialized string                  `json:"materialized,omitempty"`
	RawCode      string                  `json:"raw_code,omitempty"`
}

// GetModelResult is a model in both builds.
type GetModelResult struct {
	Model struct {
		Base    ModelSide `json:"base"`
		Current ModelSide `json:"current"`
	} `json:"model"`
}

func addModelOps(r *Registry) {
	Add(r, Spec{Name: "get_model", Memoize: true, Title: "Get model", Positional: "model_id",
		Description: "A model in base and current: columns (from the catalog, else the YAML) with not_null/unique flags from dbt tests, " +
			"the primary key (declared constraint, incremental/snapshot unique_key, or a unique test; primary_key_detail says which), materialization and raw code. " +
			"A side is {} when the model does not exist there."},
		func(ctx context.Context, s *Session, in *GetModelInput) (*GetModelResult, error) {
			if strings.TrimSpace(in.ModelID) == "" {
				return nil, fmt.Errorf("model_id is required")
			}
			p, err := s.Project(ctx)
			if err != nil {
				return nil, err
			}
			res := &GetModelResult{}
			var missing []error
			for _, side := range []struct {
				env *dbt.Env
				out *ModelSide
			}{{p.Base, &res.Model.Base}, {p.Current, &res.Model.Current}} {
				n, err := side.env.Manifest.Lookup(in.ModelID)
				if err != nil {
					missing = append(missing, err)
					continue
				}
				*side.out = modelSide(side.env, n)
			}
			if len(missing) == 2 {
				return nil, fmt.Errorf("model %q not found in either environment (use the full unique id, e.g. model.project.model_name): %w", in.ModelID, missing[1])
			}
			return res, nil
		}, nil)
}

func modelSide(env *dbt.Env, n *dbt.Node) ModelSide {
	out := ModelSide{UniqueID: n.UniqueID, Materialized: n.Materialized(), RawCode: n.Code(), Columns: map[string]*ModelColumn{}}
	tests := env.Manifest.ColumnTests(n.UniqueID)
	for _, c := range env.Columns(n.UniqueID) {
		mc := &ModelColumn{Name: c.Name, Type: c.Type}
		for _, t := range tests[strings.ToLower(c.Name)] {
			switch t {
			case "not_null":
				mc.NotNull = true
			case "unique":
				mc.Unique = true
			}
		}
		out.Columns[c.Name] = mc
		out.ColumnOrder = append(out.ColumnOrder, c.Name)
	}
	if pk := env.Manifest.PrimaryKeyOf(n.UniqueID); pk != nil {
		out.PrimaryKeys = pk
		out.PrimaryKey = strings.Join(pk.Columns, ",")
	}
	return out
}
