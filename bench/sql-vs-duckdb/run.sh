#!/usr/bin/env bash
# Differential test of `pmolap` SQL against DuckDB on seeded random star-join queries
# (diff.py). Makes WORK/venv with the pinned DuckDB of bench/ssb-vs-duckdb once.
#   bench/sql-vs-duckdb/run.sh [--sf 0.01] [--queries 200] [--seed 1]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
WORK="${WORK:-/tmp/sql-vs-duckdb}"
venv="$WORK/venv"
source "$root/bench/ssb-vs-duckdb/venv.sh"
bench_venv "$venv" "$root/bench/ssb-vs-duckdb/requirements.txt" \
    "${SKIP_WITHOUT_DUCKDB:+sql-vs-duckdb: skipped (the pinned DuckDB could not be installed)}"
(cd "$root" && cargo build --release -q -p pmolap) >&2
cd "$root"
exec "$venv/bin/python" "$here/diff.py" --work "$WORK" "$@"
