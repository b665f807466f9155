// Package dbtfixture builds real dbt-shaped projects for tests and the demo:
// a base and a current build of a compact scenario, written as dbt artifacts
// (manifest.json v12, catalog.json, run_results.json) next to a DuckDB
// database holding both builds — the equivalent of running `dbt build` twice.
//
//	p := dbtfixture.New(t) // project "ripple_test"
//	p.Seed("raw_customers", dbtfixture.CSV("id,name\n1,Alice\n2,Bob"))
//	p.Table("customers", []string{"id INTEGER", "name VARCHAR", "age INTEGER"},
//		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}},                      // base
//		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}, {3, "Charlie", 35}}). // current
//		Tests(dbtfixture.Unique("id"), dbtfixture.NotNull("id"))
//	p.Model("orders", dbtfixture.Incremental("order_id"), baseSQL, currentSQL). // "" = absent on a side
//		Tests(dbtfixture.Relationships("customer_id", "customers", "id")).
//		Current().Tags("finance")                                               // side-specific settings
//	b := p.MustBuild(ctx) // or p.Build(ctx, dir)
//	proj, err := b.Load(ctx)
//
// Build writes dir/dbt_project.yml, dir/profiles.yml (duckdb targets "base"
// and "current"), the current side's models/seeds/macros, dir/target-base/
// and dir/target/ artifacts, and dir/ripple.duckdb whose schemas "base" and
// "current" hold each side's seeds, tables, views and snapshots (sources are
// shared, in a schema named after the source). The dbt database is the file's
// stem ("ripple").
//
// Model SQL is the Jinja subset real projects use most: {{ ref('m') }},
// {{ ref('pkg', 'm') }}, {{ source('s', 't') }}, {{ this }}, calls to
// scenario macros (Project.Macro), {% if is_incremental() %} blocks (dropped:
// every build is a first build) and {{ config(...) }} (ignored; use the
// builder methods). Refs render to the side's quoted relation
// ("ripple"."current"."customers"); ephemeral models are injected as
// __dbt__cte__<name> CTEs exactly as dbt does.
//
// Manifests carry what dbt writes: unique ids, fqn, paths, sha256 checksums
// of the raw code, rendered config with dbt's defaults, unrendered_config
// with only the explicitly set keys, compiled code, depends_on, refs,
// sources, documented and tested columns, generic test nodes with
// test_metadata, disabled nodes, exposures, macros, parent_map and child_map.
// Catalogs hold the physical columns DuckDB reports; run_results hold a
// result per node, with the real outcome (pass/fail and failures) of each
// data test. The output validates against dbt's published JSON schemas.
package dbtfixture
