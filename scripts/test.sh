#!/usr/bin/env bash
# The one test command (README and CI both run it). On a fresh Debian machine
# it installs and starts what the tests need (PostgreSQL), then runs the
# static checks, the Go test suite with -race, short fuzzing and the
# end-to-end tests with a real MCP client. Chromium (Debian's) runs the web
# UI's browser tests; their screenshots land in artifacts/screenshots.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*" >&2; }

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
go test -race -count=1 -timeout 40m ./...

step "fuzz (short)"
bash scripts/fuzz.sh 10s

step "benchmark smoke run (go run ./bench, small: checks it runs, asserts no timing)"
go run ./bench -sizes 100 -runs 1 -mcp-calls 3

step "end to end"
bash scripts/e2e.sh
