// Real-client end-to-end test on the demo project: the TypeScript MCP SDK
// spawns `ripple mcp` over stdio against the DuckDB demo (`ripple demo`),
// calls impact_analysis and checks the numbers the demo is built to produce.
//
//   RIPPLE_BIN=/path/to/ripple RIPPLE_DEMO=/path/to/ripple-demo node --test demo.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
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
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--project-dir", demo, "--duckdb", `${demo}/jaffle_shop.duckdb`, "--state-file", `${demo}/ripple_state.json`],
    stderr: "pipe",
  });
  client = new Client({ name: "ripple-demo-e2e", version: "1.0.0" });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
});

test("impact_analysis triages the demo pull request in one call", { skip: missing }, async () => {
  const res = await client.callTool({ name: "impact_analysis", arguments: {} });
  assert.equal(res.isError ?? false, false, JSON.stringify(res.content));
  const out = res.structuredContent;
  assert.deepEqual(JSON.parse(res.content[0].text), out);
  assert.equal(out.classification_source, "column_lineage");
  assert.deepEqual(out.errors, []);
  const byName = Object.fromEntries(out.confirmed_impacted_models.map((m) => [m.name, m]));

  // orders: downstream of the stg_payments fix, 4,448 of 10,000 rows change.
  assert.equal(byName.orders.classification, "downstream");
  assert.equal(byName.orders.data_impact, "confirmed");
  assert.equal(byName.orders.affected_row_count, 4448);
  assert.equal(byName.orders.value_diff.rows_changed, 4448);
  assert.equal(byName.orders.value_diff.columns.amount.affected_row_count, 4448);
  assert.equal(byName.orders.row_count.base, 10000);
  assert.equal(byName.orders.row_count.delta, 0);

  // customers: modified (new column full_name), 1,654 customer_lifetime_value changes.
  assert.equal(byName.customers.change_status, "modified");
  assert.equal(byName.customers.affected_row_count, 1654);
  assert.deepEqual(byName.customers.schema_changes.map((c) => [c.column, c.change_status]), [["full_name", "added"]]);

  // stg_payments is a view keyed by its unique test: value-diffed too.
  assert.equal(byName.stg_payments.data_impact, "confirmed");
  assert.equal(byName.stg_payments.affected_row_count, 4773);

  // Added and removed models.
  assert.equal(byName.customer_segments.change_status, "added");
  assert.equal(byName.customer_orders_legacy.change_status, "removed");
  assert.equal(byName.customer_orders_legacy.row_count.base, 1798);

  // Column lineage rules out payment_method_summary: it reads no changed column.
  assert.ok(out.confirmed_not_impacted_models.includes("payment_method_summary"));
  assert.equal(out.not_impacted_by_column_lineage_count, 1);
  assert.equal(out.max_affected_row_count, 4773);
  assert.ok(out.suggested_checks.some((c) => c.type === "value_diff" && c.params.model === "orders"));
});

test("row_count_diff and value_diff answer through the protocol", { skip: missing }, async () => {
  const rc = await client.callTool({ name: "row_count_diff", arguments: { node_names: ["orders", "customer_segments"] } });
  assert.equal(rc.isError ?? false, false, JSON.stringify(rc.content));
  assert.equal(rc.structuredContent.models.orders.base, 10000);
  assert.equal(rc.structuredContent.models.orders.current, 10000);
  assert.equal(rc.structuredContent.models.customer_segments.base, null);
  assert.equal(rc.structuredContent.models.customer_segments.base_meta.status, "not_in_manifest");
  assert.equal(rc.structuredContent.models.customer_segments.current, 2000);

  const vd = await client.callTool({ name: "value_diff", arguments: { model: "orders", primary_key: "order_id" } });
  assert.equal(vd.isError ?? false, false, JSON.stringify(vd.content));
  assert.deepEqual(vd.structuredContent.summary, { total: 10000, added: 0, removed: 0, changed: 4448 });
});
