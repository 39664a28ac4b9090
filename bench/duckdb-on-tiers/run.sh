#!/usr/bin/env bash
# DuckDB (pinned in requirements.txt) running SSB with its database file and temp
# directory on each tier path; slowdown vs the first (DRAM) tier per query. See README.md.
#
#   bench/duckdb-on-tiers/run.sh --sf 1 --tier /dev/shm --tier /var/tmp
#
# Environment: WORK (data and venv, default /tmp/duckdb-on-tiers), PYTHON (default python3).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
WORK="${WORK:-/tmp/duckdb-on-tiers}"
PYTHON="${PYTHON:-python3}"
venv="$WORK/venv"
if [[ ! -x "$venv/bin/python" ]]; then
    mkdir -p "$WORK"
    "$PYTHON" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2
(cd "$root" && cargo build --release -q -p pmolap) >&2
exec "$venv/bin/python" "$here/duckdb_on_tiers.py" --work "$WORK" "$@"
