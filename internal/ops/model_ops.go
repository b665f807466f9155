package ops

import (
	"context"
	"fmt"
	"github.com/ripple-data/ripple/internal/sqldiff"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// GetModelInput names a model.
type GetModelInput struct {
	ModelID string `json:"model_id" jsonschema:"model unique id (or name)"`
}

// ModelColumn is a physical column with its tested constraints.
type ModelColumn struct {
	Name    string `json:"name" jsonschema:"name"`
	Type    string `json:"type" jsonschema:"data type"`
	NotNull bool   `json:"not_null,omitempty" jsonschema:"has a not_null test"`
	Unique  bool   `json:"unique,omitempty" jsonschema:"has a unique test"`
}

// PrimaryKeyDetail says where a primary key comes from.
type PrimaryKeyDetail struct {
	Columns  []string `json:"columns" jsonschema:"columns"`
	Basis    string   `json:"basis" jsonschema:"declared (constraint, unique_key) or tested"`
	Evidence string   `json:"evidence" jsonschema:"where it was read"`
}

// ModelSide is a model as one build knows it; empty when absent.
type ModelSide struct {
	UniqueID     string                  `json:"unique_id,omitempty" jsonschema:"unique id"`
	Columns      map[string]*ModelColumn `json:"columns,omitempty" jsonschema:"columns by name"`
	ColumnOrder  []string                `json:"column_order,omitempty" jsonschema:"names in table order"`
	PrimaryKey   string                  `json:"primary_key,omitempty" jsonschema:"key column(s), comma-separated"`
	PrimaryKeys  *PrimaryKeyDetail       `json:"primary_key_detail,omitempty" jsonschema:"key evidence"`
	Materialized string                  `json:"materialized,omitempty" jsonschema:"materialization"`
	RawCode      string                  `json:"raw_code,omitempty" jsonschema:"SQL as written"`
}

// GetModelResult is a model in both builds.
type GetModelResult struct {
	Model struct {
		Base    ModelSide `json:"base" jsonschema:"{} when absent"`
		Current ModelSide `json:"current" jsonschema:"{} when absent"`
	} `json:"model" jsonschema:"base and current"`
	// CodeChange explains a code edit so a reviewer need not diff the two
	// code texts by eye.
	CodeChange *sqldiff.CodeChange `json:"code_change,omitempty" jsonschema:"as sql_diff"`
}

func addModelOps(r *Registry) {
	Add(r, Spec{Name: "get_model", Memoize: true, Title: "Get model", Positional: "model_id",
		Description: "A model in base and current: columns (not_null/unique tests), key, materialization, raw code, code_change; {} if absent."},
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
			if len(missing) == 0 {
				res.CodeChange = codeChange(p, in.ModelID)
			}
			if len(missing) == 2 {
				//lint:ignore ST1005 the peer's exact message, which agents match on
				return nil, fmt.Errorf("Model '%s' not found in either environment. Use the full unique ID (e.g., 'model.project.model_name'): %w", in.ModelID, missing[1])
			}
			return res, nil
		})
}

// codeChange is the structural diff of a model's code in both builds;
// nil when the code is the same text.
func codeChange(p *dbt.Project, id string) *sqldiff.CodeChange {
	bn, err1 := p.Base.Manifest.Lookup(id)
	cn, err2 := p.Current.Manifest.Lookup(id)
	if err1 != nil || err2 != nil {
		return nil
	}
	return sqldiff.ForNodes(p.Current.Manifest.Metadata.AdapterType, bn, cn, p.Base.Manifest, p.Current.Manifest)
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
