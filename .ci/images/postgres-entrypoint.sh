#!/bin/sh
# First start: initialise the cluster with the official image's variables; then serve. A first
# start that stopped half-way (no marker) is started again from scratch.
set -eu
marker="$PGDATA/.initialised"
if [ ! -f "$marker" ]; then
  find "$PGDATA" -mindepth 1 -delete
  pw=$(mktemp) && printf '%s\n' "$POSTGRES_PASSWORD" > "$pw"
  initdb --username="$POSTGRES_USER" --pwfile="$pw" --auth-local=trust \
    --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f "$pw"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" -d postgres \
    -c "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\"" >/dev/null
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  touch "$marker"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
