#!/usr/bin/env bash
# Load speed: `pmolap load` vs DuckDB loading the same files into tables of the same
# schema (bench.py; README.md). Makes WORK/venv with the pinned DuckDB of
# bench/ssb-vs-duckdb once.
#   bench/load-vs-duckdb/run.sh [--rows 3000000] [--reps 3]
# PMOLAP names the binary (default: target/release/pmolap, built if missing).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
WORK="${WORK:-/tmp/load-vs-duckdb}"
venv="$WORK/venv"
source "$root/bench/ssb-vs-duckdb/venv.sh"
bench_venv "$venv" "$root/bench/ssb-vs-duckdb/requirements.txt"
pmolap="${PMOLAP:-$root/target/release/pmolap}"
if [[ -z "${PMOLAP:-}" ]]; then
    (cd "$root" && cargo build --release --locked -p pmolap >&2)
fi
exec "$venv/bin/python" "$here/bench.py" --work "$WORK" --pmolap "$pmolap" "$@"
