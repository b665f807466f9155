package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// GetModelInput names a model.
type GetModelInput struct {
	ModelID string `json:"model_id" jsonschema:"unique id, e.g. model.jaffle_shop.customers (a model name also works)"`
}

// ModelColumn is a physical column with its tested constraints.
type ModelColumn struct {
	Name    string `json:"name" jsonschema:"column name"`
	Type    string `json:"type" jsonschema:"data type from the catalog (else the YAML)"`
	NotNull bool   `json:"not_null,omitempty" jsonschema:"true when a not_null test covers it"`
	Unique  bool   `json:"unique,omitempty" jsonschema:"true when a unique test covers it"`
}

// PrimaryKeyDetail says where a primary key comes from.
type PrimaryKeyDetail struct {
	Columns  []string `json:"columns" jsonschema:"the key columns"`
	Basis    string   `json:"basis" jsonschema:"declared (a primary_key constraint or an incremental/snapshot unique_key) or tested (a unique test)"`
	Evidence string   `json:"evidence" jsonschema:"the constraint, config or test it was read from"`
}

// ModelSide is a model as one build knows it; empty when absent.
type ModelSide struct {
	UniqueID     string                  `json:"unique_id,omitempty" jsonschema:"the model's unique id"`
	Columns      map[string]*ModelColumn `json:"columns,omitempty" jsonschema:"columns keyed by name"`
	ColumnOrder  []string                `json:"column_order,omitempty" jsonschema:"column names in table order"`
	PrimaryKey   string                  `json:"primary_key,omitempty" jsonschema:"the primary key column (comma-separated when composite)"`
	PrimaryKeys  *PrimaryKeyDetail       `json:"primary_key_detail,omitempty" jsonschema:"the key's columns and where it comes from"`
	Materialized string                  `json:"materialized,omitempty" jsonschema:"table, view, incremental, ephemeral, ..."`
	RawCode      string                  `json:"raw_code,omitempty" jsonschema:"the model's SQL as written"`
}

// GetModelResult is a model in both builds.
type GetModelResult struct {
	Model struct {
		Base    ModelSide `json:"base" jsonschema:"the model in base; {} when absent"`
		Current ModelSide `json:"current" jsonschema:"the model in current; {} when absent"`
	} `json:"model" jsonschema:"the model in both environments"`
}

func addModelOps(r *Registry) {
	Add(r, Spec{Name: "get_model", Memoize: true, Title: "Get model", Positional: "model_id",
		Description: "A model in base and current: columns keyed by name with not_null/unique flags from dbt tests, the primary key (declared " +
			"constraint, unique_key or a unique test; primary_key_detail says which), materialization and raw code. A side is {} when the model is absent."},
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
				return nil, fmt.Errorf("Model '%s' not found in either environment. Use the full unique ID (e.g., 'model.project.model_name'): %w", in.ModelID, missing[1])
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
		out.PrimaryKeys = &PrimaryKeyDetail{Columns: pk.Columns, Basis: string(pk.Basis), Evidence: pk.Evidence}
		out.PrimaryKey = strings.Join(pk.Columns, ",")
	}
	return out
}
