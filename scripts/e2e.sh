#!/usr/bin/env bash
# End-to-end: the real binary on the demo project, and a real MCP client.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/ripple
go build -o "$bin" ./cmd/ripple
work=$(mktemp -d)
"$bin" demo --dir "$work/demo" > "$work/demo.txt"
grep -q . "$work/demo.txt"
if [ -d e2e/mcp ] && [ -f e2e/mcp/run.sh ]; then
  RIPPLE_BIN="$bin" RIPPLE_PROJECT="$work/demo" bash e2e/mcp/run.sh
fi
echo "e2e passed" >&2
