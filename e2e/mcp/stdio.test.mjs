// Real-client end-to-end test: the TypeScript MCP SDK spawns the built
// `ripple mcp` binary over stdio, as Claude Code, Cursor or VS Code would.
//
//   RIPPLE_BIN=/path/to/ripple RIPPLE_PROJECT=/path/to/dbt/project \
//   [RIPPLE_TARGET_PATH=target RIPPLE_TARGET_BASE_PATH=target-base] node --test stdio.test.mjs
//
// The expected numbers are those of the jaffle_shop fixture
// (testdata/real/mrkidbk_test_dbt_jaffle_shop, current/ vs base/):
// stg_payments modified (body), orders and customers impacted.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError, ErrorCode } from "@modelcontextprotocol/sdk/types.js";

const bin = process.env.RIPPLE_BIN;
const project = process.env.RIPPLE_PROJECT;
const targetPath = process.env.RIPPLE_TARGET_PATH ?? "current";
const basePath = process.env.RIPPLE_TARGET_BASE_PATH ?? "base";
const missing = !bin || !project || !existsSync(bin) || !existsSync(project);
if (missing && process.env.CI === "true") {
  throw new Error("RIPPLE_BIN and RIPPLE_PROJECT must name the ripple binary and a dbt project");
}

let client;
let transport;

before(async () => {
  if (missing) return;
  transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--project-dir", project, "--target-path", targetPath, "--target-base-path", basePath],
    stderr: "pipe",
  });
  client = new Client({ name: "ripple-e2e", version: "1.0.0" });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
});

test("initialize negotiates the latest handshake version", { skip: missing }, () => {
  const info = client.getServerVersion();
  assert.equal(info.name, "ripple");
  assert.ok(client.getServerCapabilities().tools);
  assert.ok(client.getServerCapabilities().resources);
  assert.ok(client.getServerCapabilities().prompts);
});

test("tools/list: every tool has a description, an outputSchema and annotations", { skip: missing }, async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ["lineage_diff", "select_nodes", "get_server_info", "set_backend"]) {
    assert.ok(names.includes(n), `${n} listed`);
  }
  for (const t of tools) {
    assert.ok(t.description, `${t.name} description`);
    assert.equal(t.inputSchema.type, "object", `${t.name} inputSchema`);
    assert.ok(t.outputSchema, `${t.name} outputSchema`);
    assert.equal(t.annotations.openWorldHint, false, `${t.name} openWorldHint`);
  }
});

test("lineage_diff returns the fixture's change, structured and as text", { skip: missing }, async () => {
  // callTool validates structuredContent against the advertised outputSchema.
  const res = await client.callTool({ name: "lineage_diff", arguments: {} });
  assert.equal(res.isError ?? false, false, JSON.stringify(res.content));
  const out = res.structuredContent;
  assert.deepEqual(JSON.parse(res.content[0].text), out);
  assert.equal(out.changed_count, 1);
  assert.equal(out.impacted_count, 3);
  assert.equal(out.returned_nodes, 4);
  assert.equal(out.single_env, false);
  const cols = out.nodes.columns.map((c) => c.key);
  const rows = Object.fromEntries(out.nodes.data.map((r) => [r[cols.indexOf("name")], r]));
  const stg = rows["stg_payments"];
  assert.equal(stg[cols.indexOf("change_status")], "modified");
  assert.deepEqual(stg[cols.indexOf("modifications")], ["body"]);
  assert.equal(stg[cols.indexOf("impacted")], true);
  assert.equal(rows["orders"][cols.indexOf("impacted")], true);
  assert.equal(rows["customers"][cols.indexOf("impacted")], true);
  assert.equal(rows["raw_payments"][cols.indexOf("impacted")], false);
  assert.equal(out.edges.data.length, 3);
});

test("select_nodes resolves dbt selectors", { skip: missing }, async () => {
  const res = await client.callTool({ name: "select_nodes", arguments: { select: "stg_payments+" } });
  assert.deepEqual(res.structuredContent.nodes, [
    "model.jaffle_shop.customers",
    "model.jaffle_shop.orders",
    "model.jaffle_shop.stg_payments",
  ]);
});

test("impact_analysis, when registered, answers without a protocol error", { skip: missing }, async () => {
  const { tools } = await client.listTools();
  if (!tools.some((t) => t.name === "impact_analysis")) return;
  const res = await client.callTool({ name: "impact_analysis", arguments: {} });
  // Without a warehouse it may be a tool error; it must still be a result.
  assert.ok(Array.isArray(res.content));
});

test("a string 'false' for a boolean / a wrong type is an input validation error", { skip: missing }, async () => {
  const res = await client.callTool({ name: "lineage_diff", arguments: { view_mode: false } });
  assert.equal(res.isError, true);
  assert.match(res.content[0].text, /^Input validation error: /);
});

test("unknown tool is a -32602 protocol error naming the available tools", { skip: missing }, async () => {
  await assert.rejects(client.callTool({ name: "drop_database", arguments: {} }), (err) => {
    assert.ok(err instanceof McpError);
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, /Unknown tool: drop_database/);
    return true;
  });
});

test("get_server_info, resources and prompts", { skip: missing }, async () => {
  const info = (await client.callTool({ name: "get_server_info", arguments: {} })).structuredContent;
  assert.equal(info.mode, "local");
  assert.equal(info.server_mode, "server");
  assert.equal(info.single_env, false);
  assert.equal(info.artifacts_loaded, true);
  const { resources } = await client.listResources();
  assert.ok(resources.some((r) => r.uri === "ripple://lineage/graph"));
  const graph = await client.readResource({ uri: "ripple://lineage/graph" });
  assert.equal(JSON.parse(graph.contents[0].text).returned_nodes, 8);
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name).sort(), [
    "add_missing_tests",
    "answer_data_question",
    "assess_change_impact",
    "review_pull_request",
  ]);
  await client.ping();
});
