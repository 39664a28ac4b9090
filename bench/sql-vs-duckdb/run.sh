#!/usr/bin/env bash
# Differential test of `pmolap` SQL against DuckDB on seeded random star-join queries
# over SSB and workloads/star-retail (diff.py). Makes WORK/venv with the pinned DuckDB of
# bench/ssb-vs-duckdb once. WORK (kept for the next run) defaults to
# target/bench-work/sql-vs-duckdb in the repository;
# scratch files (TMPDIR) go under WORK/tmp, removed however the script ends.
#   bench/sql-vs-duckdb/run.sh [--sf 0.01] [--queries 200] [--retail-queries 200] [--seed 1]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
WORK="${WORK:-$root/target/bench-work/sql-vs-duckdb}"
source "$root/bench/cleanup.sh"
bench_scratch "$WORK/tmp"
export TMPDIR="$WORK/tmp"
venv="$WORK/venv"
source "$root/bench/ssb-vs-duckdb/venv.sh"
bench_venv "$venv" "$root/bench/ssb-vs-duckdb/requirements.txt" \
    "${SKIP_WITHOUT_DUCKDB:+sql-vs-duckdb: skipped (the pinned DuckDB could not be installed)}"
(cd "$root" && cargo build --release -q -p pmolap) >&2
cd "$root"
"$venv/bin/python" "$here/diff.py" --work "$WORK" "$@"
