#!/usr/bin/env bash
# pmolap vs DuckDB and Tableau Hyper on a TPC-H retail star: load (CSV and Parquet) and the
# star queries of queries.sql, alternated, every answer checked (retail_star.py; README.md).
#
#   bench/retail-star/run.sh --sf 0.5 --threads 2 --reps 5 --load-reps 3   # ~3 M fact rows
#   bench/retail-star/run.sh --sf 5 --threads 2 --reps 5 --load-reps 3     # ~30 M
#   bench/retail-star/run.sh --sf 0.01 --reps 1 --load-reps 1              # a check of the script
#
# Environment: WORK (data, databases and venv, kept for the next run; default
# target/bench-work/retail-star in the repository), PYTHON (default python3). Scratch
# files (TMPDIR) go under WORK/tmp, removed however the script ends.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
WORK="${WORK:-$root/target/bench-work/retail-star}"
source "$root/bench/cleanup.sh"
bench_scratch "$WORK/tmp"
export TMPDIR="$WORK/tmp"
source "$root/bench/ssb-vs-duckdb/venv.sh"
bench_venv "$WORK/venv" "$here/requirements.txt"
(cd "$root" && cargo build --release -q --locked -p pmolap && \
    cargo build --release -q --locked -p pmolap-load --example tpch_star) >&2
"$WORK/venv/bin/python" "$here/retail_star.py" --work "$WORK" \
    --pmolap "$root/target/release/pmolap" --gen "$root/target/release/examples/tpch_star" "$@"
