// Package dbtfixture builds real dbt-shaped projects for tests and the demo:
// a base and a current build of a compact scenario, written as dbt artifacts
// (manifest.json, catalog.json, run_results.json) next to a DuckDB database
// holding both builds — the equivalent of running `dbt build` twice.
package dbtfixture
