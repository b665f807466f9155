#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests (internal/web), once.
# Safe to run again. Prints the export line for the tests, like postgres.sh:
#
#   eval "$(bash .ci/chromium.sh)"   # sets RIPPLE_CHROMIUM
set -euo pipefail

log() { echo "chromium.sh: $*" >&2; }

if ! command -v chromium >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  log "installing chromium from Debian"
  if ! apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2; then
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
  fi
fi
log "$(chromium --version 2>/dev/null | head -n1)"
echo "export RIPPLE_CHROMIUM=$(command -v chromium)"
