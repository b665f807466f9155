#!/usr/bin/env bash
# Runs every fuzz target for a short time (default 10s each).
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-10s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)' "$dir"/*_test.go 2>/dev/null | awk '{print $2}' | sort -u); do
    echo "fuzz $pkg $f ($dur)" >&2
    timeout 300 go test -run '^$' -fuzz "^${f}\$" -fuzztime "$dur" "$pkg"
  done
done
