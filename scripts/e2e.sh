#!/usr/bin/env bash
# End-to-end: the real binary on the demo project, then real MCP clients —
# the official TypeScript SDK over stdio and the official conformance suite
# over streamable HTTP. Needs npm (the npm registry) and curl.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="$work/ripple"
go build -o "$bin" ./cmd/ripple
"$bin" demo --dir "$work/demo" > "$work/demo.txt"
grep -q "customers" "$work/demo.txt"

echo "== MCP: TypeScript SDK client over stdio" >&2
fixture="$(pwd)/testdata/real/mrkidbk_test_dbt_jaffle_shop"
(cd e2e/mcp && npm ci --no-audit --no-fund >&2)
(cd e2e/mcp && CI=true RIPPLE_BIN="$bin" RIPPLE_DEMO="$work/demo" RIPPLE_PROJECT="$fixture" \
  node --test stdio.test.mjs demo.test.mjs impact.test.mjs contract.test.mjs)

echo "== MCP: conformance suite over HTTP" >&2
RIPPLE_PROJECT="$fixture" bash e2e/mcp/conformance.sh
echo "e2e passed" >&2
