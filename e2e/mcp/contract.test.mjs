// The seed's MCP contract through a real client: the TypeScript MCP SDK
// spawns `ripple mcp` over stdio on the DuckDB demo (`ripple demo`) and
// calls the peer's tools with the peer's parameter names. callTool
// validates every structuredContent against the tool's advertised
// outputSchema, so the shapes are checked twice.
//
//   RIPPLE_BIN=/path/to/ripple RIPPLE_DEMO=/path/to/ripple-demo node --test contract.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const bin = process.env.RIPPLE_BIN;
const demo = process.env.RIPPLE_DEMO;
const missing = !bin || !demo || !existsSync(bin) || !existsSync(`${demo}/jaffle_shop.duckdb`);
if (missing && process.env.CI === "true") {
  throw new Error("RIPPLE_BIN and RIPPLE_DEMO must name the ripple binary and a `ripple demo` directory");
}

let client;

before(async () => {
  if (missing) return;
  const state = join(mkdtempSync(join(tmpdir(), "ripple-contract-")), "ripple_state.json");
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--project-dir", demo, "--duckdb", `${demo}/jaffle_shop.duckdb`, "--state-file", state],
    stderr: "pipe",
  });
  client = new Client({ name: "ripple-contract-e2e", version: "1.0.0" });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
});

// call returns a tool's structured result, failing on a tool error.
async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert.equal(res.isError ?? false, false, `${name}: ${JSON.stringify(res.content)}`);
  assert.deepEqual(JSON.parse(res.content[0].text), res.structuredContent);
  return res.structuredContent;
}

// rows maps a DataFrame's rows to objects, after checking its keys.
function rows(df) {
  for (const k of ["columns", "data", "limit", "more", "total_row_count"]) {
    assert.ok(k in df, `DataFrame lacks ${k}`);
  }
  const keys = df.columns.map((c) => c.key);
  return df.data.map((r) => Object.fromEntries(keys.map((k, i) => [k, r[i]])));
}

const revenue = "select sum(amount) as revenue from {{ ref('orders') }}";

// The budget is internal/mcpserver's toolsListBudget (42,500 bytes since the
// semantic-layer reach of impact_analysis; docs/mcp.md).
test("the default tools/list is the peer's 20 tools within its 42,500-byte budget", { skip: missing }, async () => {
  const list = await client.listTools();
  assert.deepEqual(list.tools.map((t) => t.name).sort(), [
    "analyze_model", "create_check", "get_cll", "get_model", "get_server_info", "histogram_diff", "impact_analysis",
    "lineage_diff", "list_checks", "profile_diff", "query", "query_diff", "row_count_diff", "run_check", "schema_diff",
    "select_nodes", "set_backend", "top_k_diff", "value_diff", "value_diff_detail",
  ]);
  assert.ok(JSON.stringify(list).length <= 42500, `tools/list is ${JSON.stringify(list).length} bytes`);
  const query = list.tools.find((t) => t.name === "query");
  assert.deepEqual(query.inputSchema.required, ["sql_template"]);
  assert.equal(query.inputSchema.properties.sql.deprecated, true);
});

test("query with sql_template, in current and in base", { skip: missing }, async () => {
  const cur = await call("query", { sql_template: revenue });
  assert.equal(Number(rows(cur)[0].revenue), 366214.35);
  assert.equal(cur.limit, 2000);
  assert.equal(cur.more, false);
  assert.match(cur.run_id, /^[0-9a-f-]{36}$/);
  const base = await call("query", { sql_template: revenue, base: true });
  assert.equal(Number(rows(base)[0].revenue), 363782);
  // The deprecated name still works.
  const old = await call("query", { sql: revenue });
  assert.equal(Number(rows(old)[0].revenue), 366214.35);
});

test("query_diff with sql_template and primary_keys", { skip: missing }, async () => {
  const out = await call("query_diff", {
    sql_template: "select order_id, amount from {{ ref('orders') }}",
    primary_keys: ["order_id"],
  });
  assert.equal(out.base, null);
  assert.equal(out.current, null);
  // Each changed order appears twice: its base row (in_a) and its current row (in_b).
  const diff = rows(out.diff);
  assert.equal(diff.length, 2000);
  assert.equal(out.diff.more, true);
  assert.deepEqual(out.summary, { added: 0, removed: 0, changed: 4448 });
  assert.equal(diff[0].in_a, true);
  assert.equal(diff[1].in_b, true);
  assert.equal(diff[0].order_id, diff[1].order_id);
  const client_side = await call("query_diff", { sql_template: revenue, base_sql_template: revenue });
  assert.equal(Number(rows(client_side.base)[0].revenue), 363782);
  assert.equal(Number(rows(client_side.current)[0].revenue), 366214.35);
  assert.equal(client_side.diff, null);
});

test("row_count_diff is the peer's flat map", { skip: missing }, async () => {
  const out = await call("row_count_diff", { node_names: ["orders", "customer_segments", "customer_orders_legacy"] });
  assert.deepEqual(Object.keys(out).sort(), ["customer_orders_legacy", "customer_segments", "orders", "run_id"]);
  assert.deepEqual(out.orders, { base: 10000, curr: 10000, base_meta: { status: "ok" }, curr_meta: { status: "ok" } });
  assert.equal(out.customer_segments.base, null);
  assert.equal(out.customer_segments.base_meta.status, "not_in_manifest");
  assert.equal(out.customer_segments.curr, 2000);
  assert.equal(out.customer_orders_legacy.base, 1798);
  assert.equal(out.customer_orders_legacy.curr, null);
});

test("create_check runs and approves, list_checks shows it, run_check returns the run", { skip: missing }, async () => {
  assert.deepEqual(await call("list_checks", {}), { checks: [], total: 0, approved: 0, outdated: 0 });
  const params = { model: "orders", primary_key: "order_id" };
  const created = await call("create_check", { type: "value_diff", params, name: "Orders values", description: "amounts changed" });
  assert.equal(created.created, true);
  assert.equal(created.run_executed, true);
  assert.equal(created.run_error, undefined);

  const list = await call("list_checks", {});
  assert.equal(list.total, 1);
  assert.equal(list.approved, 1);
  const check = list.checks[0];
  assert.equal(check.check_id, created.check_id);
  assert.equal(check.is_checked, true);
  assert.equal(check.type, "value_diff");
  assert.equal(check.name, "Orders values");
  assert.equal(check.description, "amounts changed");
  assert.deepEqual(check.params, params);
  assert.equal(check.mismatched, true);

  const run = await call("run_check", { check_id: created.check_id, triggered_by: "recce_ai" });
  for (const k of ["run_id", "type", "name", "params", "check_id", "result", "error", "status", "progress", "run_at", "triggered_by"]) {
    assert.ok(k in run, `run lacks ${k}`);
  }
  assert.equal(run.status, "Finished");
  assert.equal(run.type, "value_diff");
  assert.equal(run.check_id, created.check_id);
  assert.equal(run.triggered_by, "recce_ai");
  assert.equal(run.error, null);
  assert.equal(run.name, "Value diff of orders");
  assert.match(run.run_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(run.result.summary.total, 10000);
  assert.equal(run.result.summary.added, 0);
  assert.equal(run.result.summary.removed, 0);

  // Idempotent on (type, params).
  const again = await call("create_check", { type: "value_diff", params, name: "Orders by id", run: false });
  assert.equal(again.created, false);
  assert.equal(again.check_id, created.check_id);
  assert.equal((await call("list_checks", {})).checks[0].name, "Orders by id");
});

test("get_server_info is the peer's local shape", { skip: missing }, async () => {
  const info = await call("get_server_info", {});
  assert.equal(info.mode, "local");
  assert.equal(info.adapter_type, "dbt");
  assert.equal(info.review_mode, false);
  assert.equal(info.single_env, false);
  assert.equal(info.base_status, "fresh");
  assert.equal(info.support_tasks.query_diff, true);
  assert.equal(info.server_mode, "server");
  assert.deepEqual(info.toolsets, ["recce"]);
});
