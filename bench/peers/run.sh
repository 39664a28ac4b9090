#!/usr/bin/env bash
# pmolap vs DuckDB (database file; in memory) and Tableau Hyper on the 13 SSB queries and
# a seeded random sample of the SQL family (compare.py; README.md).
#
#   bench/peers/run.sh --sf 1 --threads 2 --reps 5 --sample 50 --seed 1
#
# Environment: WORK (data and venv, kept for the next run; default target/bench-work/peers
# in the repository), PYTHON (default python3). Scratch files (TMPDIR) go under WORK/tmp,
# removed however the script ends.
# SKIP_WITHOUT_HYPER=1: exit 0 with one line when the pinned packages cannot be installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
WORK="${WORK:-$root/target/bench-work/peers}"
source "$root/bench/cleanup.sh"
bench_scratch "$WORK/tmp"
export TMPDIR="$WORK/tmp"
venv="$WORK/venv"
source "$root/bench/ssb-vs-duckdb/venv.sh"
bench_venv "$venv" "$here/requirements.txt" \
    "${SKIP_WITHOUT_HYPER:+peers: skipped (the pinned DuckDB / tableauhyperapi could not be installed)}"
(cd "$root" && cargo build --release -q -p pmolap) >&2
cd "$root"
"$venv/bin/python" "$here/compare.py" --work "$WORK" "$@"
