#!/usr/bin/env bash
# DuckDB (pinned in requirements.txt) running SSB with its database file and temp
# directory on each tier path; slowdown vs the first (DRAM) tier per query. See README.md.
#
#   bench/duckdb-on-tiers/run.sh --sf 1 --tier /dev/shm --tier /var/tmp
#
# Environment: WORK (data and venv, kept for the next run; default
# target/bench-work/duckdb-on-tiers in the repository), PYTHON (default python3). Scratch
# files (TMPDIR) go under WORK/tmp, removed however the script ends.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
WORK="${WORK:-$root/target/bench-work/duckdb-on-tiers}"
source "$root/bench/cleanup.sh"
bench_scratch "$WORK/tmp"
export TMPDIR="$WORK/tmp"
PYTHON="${PYTHON:-python3}"
venv="$WORK/venv"
if [[ ! -x "$venv/bin/python" ]]; then
    mkdir -p "$WORK"
    "$PYTHON" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2
(cd "$root" && cargo build --release -q -p pmolap) >&2
"$venv/bin/python" "$here/duckdb_on_tiers.py" --work "$WORK" "$@"
