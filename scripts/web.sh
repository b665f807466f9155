#!/usr/bin/env bash
# Rebuilds the web UI (web/ → internal/web/dist) and the MCP App
# (web/review.html → internal/mcpserver/app/review.html) from the lockfile and fails
# when the result differs from the committed bundle, so the binary always
# embeds what the sources say. `go build` itself never needs npm.
#
#   bash scripts/web.sh          # CI: npm ci, type-check, build, compare
#   bash scripts/web.sh --update # after changing web/: rebuild, then commit internal/web/dist and internal/mcpserver/app
set -euo pipefail
cd "$(dirname "$0")/.."

(cd web && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build) >&2

if [ "${1:-}" != "--update" ]; then
  if ! git diff --quiet -- internal/web/dist internal/mcpserver/app e2e/apphost/testdata || [ -n "$(git ls-files --others --exclude-standard -- internal/web/dist internal/mcpserver/app e2e/apphost/testdata)" ]; then
    echo "web.sh: internal/web/dist or internal/mcpserver/app differs from a fresh build of web/:" >&2
    git status --short -- internal/web/dist internal/mcpserver/app e2e/apphost/testdata >&2
    echo "web.sh: run 'bash scripts/web.sh --update' and commit internal/web/dist, internal/mcpserver/app and e2e/apphost/testdata" >&2
    exit 1
  fi
fi

raw=0
gz=0
for f in internal/web/dist/index.html internal/web/dist/assets/*; do
  raw=$((raw + $(wc -c < "$f")))
  gz=$((gz + $(gzip -9c "$f" | wc -c)))
done
echo "web.sh: bundle: $(ls internal/web/dist/assets | wc -l) assets, ${raw} bytes raw, ${gz} bytes gzip" >&2
app=internal/mcpserver/app/review.html
echo "web.sh: MCP App ui://ripple/review: $(wc -c < "$app") bytes raw, $(gzip -9c "$app" | wc -c) bytes gzip (goal: at most 500 KB gzip)" >&2
