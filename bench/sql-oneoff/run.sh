#!/usr/bin/env bash
# A one-off `pmolap sql` process vs a fresh DuckDB process on the same SSB query, the page
# cache warm (oneoff.py): alternated runs, medians with min–max, and issue 34's goal (the
# pmolap process within 100 ms + the query's own time). Makes WORK/venv with the pinned
# DuckDB of bench/ssb-vs-duckdb once; data under WORK/sf<SF> is kept for the next run.
#   bench/sql-oneoff/run.sh [--sf 10] [--query 2.1] [--runs 9] [--threads 0]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
WORK="${WORK:-/tmp/sql-oneoff}"
venv="$WORK/venv"
source "$root/bench/ssb-vs-duckdb/venv.sh"
bench_venv "$venv" "$root/bench/ssb-vs-duckdb/requirements.txt"
(cd "$root" && cargo build --release -q -p pmolap) >&2
cd "$root"
exec "$venv/bin/python" "$here/oneoff.py" --work "$WORK" "$@"
