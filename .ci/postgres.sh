#!/usr/bin/env bash
# Starts a local PostgreSQL for the adapter tests and prints the DSN export.
# Run as root on a Debian machine; safe to run again (idempotent).
#
#   eval "$(bash .ci/postgres.sh)"   # sets RIPPLE_TEST_POSTGRES_DSN (and _SUPER_DSN)
#
# Everything except the final export line goes to stderr so eval stays clean.
set -euo pipefail

ROLE=ripple
PASSWORD=ripple
DB=ripple_test
# A superuser for the tests that check Ripple's warnings about superusers and
# create throwaway minimal roles (internal/warehouse/postgres).
SUPER_ROLE=ripple_admin
SUPER_PASSWORD=ripple_admin

log() { echo "postgres.sh: $*" >&2; }

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || ! command -v pg_ctlcluster >/dev/null; then
  log "installing postgresql from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
fi

VER=$(ls /usr/lib/postgresql | sort -V | tail -n1)
if ! pg_lsclusters -h | awk -v v="$VER" '$1 == v && $2 == "main" {found=1} END {exit !found}'; then
  log "creating cluster $VER/main"
  pg_createcluster --port 5432 "$VER" main >&2
fi
PORT=$(pg_lsclusters -h | awk -v v="$VER" '$1 == v && $2 == "main" {print $3}')

if ! pg_ctlcluster "$VER" main status >/dev/null 2>&1; then
  log "starting cluster $VER/main on port $PORT"
  pg_ctlcluster "$VER" main start >&2
fi

for _ in $(seq 1 60); do
  pg_isready -q -h localhost -p "$PORT" && break
  sleep 0.5
done
pg_isready -h localhost -p "$PORT" >&2

psql_admin() { runuser -u postgres -- psql -p "$PORT" -v ON_ERROR_STOP=1 -qAt "$@"; }

psql_admin -c "DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE') THEN
    CREATE ROLE $ROLE LOGIN PASSWORD '$PASSWORD';
  ELSE
    ALTER ROLE $ROLE LOGIN PASSWORD '$PASSWORD';
  END IF;
END \$\$;" >&2
psql_admin -c "DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$SUPER_ROLE') THEN
    CREATE ROLE $SUPER_ROLE LOGIN SUPERUSER PASSWORD '$SUPER_PASSWORD';
  ELSE
    ALTER ROLE $SUPER_ROLE LOGIN SUPERUSER PASSWORD '$SUPER_PASSWORD';
  END IF;
END \$\$;" >&2
if [ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != "1" ]; then
  log "creating database $DB"
  psql_admin -c "CREATE DATABASE $DB OWNER $ROLE" >&2
fi

echo "export RIPPLE_TEST_POSTGRES_DSN=postgres://$ROLE:$PASSWORD@localhost:$PORT/$DB?sslmode=disable RIPPLE_TEST_POSTGRES_SUPER_DSN=postgres://$SUPER_ROLE:$SUPER_PASSWORD@localhost:$PORT/$DB?sslmode=disable"
