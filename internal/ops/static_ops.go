package ops

import (
	"context"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/static"
	"github.com/ripple-data/ripple/internal/static/cllstatic"
)

// StaticProject returns the current build prepared for artifact-only
// questions, with column lineage as join evidence when it can be computed.
func (s *Session) StaticProject(ctx context.Context) (*static.Project, error) {
	v, err := s.Cached(ctx, "static", func(p *dbt.Project) (any, error) {
		opts := static.Options{FileRoots: append([]string{p.Paths.ProjectDir}, s.Config().AllowedDirs...)}
		if l, err := s.staticLineage(ctx); err == nil {
			opts.Lineage = l
		} else {
			s.Logger().Warn("static analysis without column lineage", "error", err)
		}
		return static.New(p.Current, opts), nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*static.Project), nil
}

// staticLineage is the current build's column lineage in the shape static
// analysis reads (inputs per column, row inputs by kind, join keys).
func (s *Session) staticLineage(ctx context.Context) (*cllstatic.Lineage, error) {
	v, err := s.Cached(ctx, "cllstatic", func(p *dbt.Project) (any, error) {
		pl, err := s.ProjectLineage(ctx, false)
		if err != nil {
			return nil, err
		}
		return cllstatic.New(pl, p.Current.Manifest), nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*cllstatic.Lineage), nil
}

// addStatic registers an artifact-only operation over the static project.
func addStatic[In, Out any](r *Registry, spec Spec, f func(context.Context, *static.Project, In) (*Out, error)) {
	Add(r, spec, func(ctx context.Context, s *Session, in *In) (*Out, error) {
		p, err := s.StaticProject(ctx)
		if err != nil {
			return nil, err
		}
		return f(ctx, p, *in)
	})
}

func addStaticOps(r *Registry) {
	addStatic(r, Spec{Name: "project_summary", Title: "Project summary",
		Description: "What this dbt project is, from its artifacts alone: dbt version, adapter, artifact paths and ages, whether a catalog exists, " +
			"counts per resource type (Python models included), column-lineage coverage and opaque models, and whether state/freshness configs are used."},
		static.Summary)
	addStatic(r, Spec{Name: "search", Title: "Search", Positional: "query",
		Description: "Find models, sources and columns by name: every term must match, prefix matches first, bounded result count."},
		static.Search)
	addStatic(r, Spec{Name: "erd", Title: "Entity-relationship diagram",
		Description: "Keys and relationships with their basis and evidence: declared (constraints, unique_key), tested (unique + not_null, relationships, " +
			"unique_combination_of_columns), joined (equi-join keys found in model SQL) and, only with infer=true, inferred from names. Cardinality only from " +
			"trusted keys. format json (default), mermaid (erDiagram) or dot. " + SelectGrammar},
		static.ERD)
	addStatic(r, Spec{Name: "test_gaps", Title: "Test gaps",
		Description: "Tests worth adding, each with model, column, test, reason and ready-to-paste YAML: key columns without unique/not_null, unique keys without " +
			"not_null, inferred relationships without a relationships test, and join keys used downstream without any test."},
		static.TestGaps)
	addStatic(r, Spec{Name: "state_policies", Title: "State policies",
		Description: "dbt freshness and build_after configurations per model and source, where the project uses them."},
		static.StatePolicies)
	addStatic(r, Spec{Name: "find_data", Title: "Find data", Positional: "query",
		Description: "Tables and columns by meaning (names and descriptions, weighted), each with its grain — or 'unknown grain: don't assume one row per anything'."},
		static.FindData)
	addStatic(r, Spec{Name: "describe_entity", Title: "Describe entity", Positional: "name",
		Description: "A table explained: grain, typed columns with key and not-null flags, joins in and out with cardinality and evidence, and a starter query."},
		static.DescribeEntity)
	addStatic(r, Spec{Name: "plan_query", Title: "Plan query",
		Description: "For 1–6 entities (the first is the grain you want): the most trustworthy join path (declared/tested over joined over inferred), SQL with " +
			"left joins on full keys in {{ ref() }} form, and warnings when a join repeats rows (many side or unknown cardinality) with the fix (aggregate first)."},
		static.PlanQuery)
	addStatic(r, Spec{Name: "compare_observed", Title: "Compare with observed lineage",
		Description: "Static column lineage against a run-time lineage export (CSV or JSON of source table.column → target table.column): per-model agreement, " +
			"missed and extra edges, precision and recall."},
		static.CompareObserved)
	addStatic(r, Spec{Name: "openlineage_export", Title: "OpenLineage export",
		Description: "Column lineage as OpenLineage ColumnLineageDatasetFacet JSON, per model, for use in other lineage tools."},
		static.OpenLineage)
}
