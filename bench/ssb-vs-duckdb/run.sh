#!/usr/bin/env bash
# Runs the 13 Star Schema Benchmark queries in DuckDB and in `pmolap ssb run` on the same
# data (generated once by `pmolap ssb gen`, loaded into both), with the same threads,
# checks that both return exactly the same rows, and prints a Markdown table (median ms,
# speedup DuckDB / pmolap, geometric mean) and writes a JSON file. See README.md.
#
#   bench/ssb-vs-duckdb/run.sh                            # SF 10, nproc threads, 5 reps
#   bench/ssb-vs-duckdb/run.sh --sf 1 --threads 2 --queries 1.1,2.3
#   bench/ssb-vs-duckdb/run.sh --sf 1 --duckdb-only \
#       --check-reference ../shared/ssb-reference/answers-sf1.json
#
# Arguments are passed to ssb_vs_duckdb.py (--help lists them). Environment: WORK (the
# data directory and the venv, kept for the next run; default
# target/bench-work/ssb-vs-duckdb in the repository; also passed as --work unless the
# arguments name one; scratch files (TMPDIR) go under WORK/tmp, removed however the script
# ends), PYTHON (the interpreter the venv is made with, default python3).
# The venv (WORK/venv) is made once and gets requirements.txt (DuckDB, pinned).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

WORK="${WORK:-$root/target/bench-work/ssb-vs-duckdb}"
source "$root/bench/cleanup.sh"
bench_scratch "$WORK/tmp"
export TMPDIR="$WORK/tmp"
PYTHON="${PYTHON:-python3}"
venv="$WORK/venv"

source "$here/venv.sh"
bench_venv "$venv" "$here/requirements.txt"

(cd "$root" && cargo build --release -q -p pmolap) >&2

args=("$@")
have_work=0
for a in "$@"; do
    [[ "$a" == --work || "$a" == --work=* ]] && have_work=1
done
((have_work)) || args+=(--work "$WORK")

cd "$root"
"$venv/bin/python" "$here/ssb_vs_duckdb.py" "${args[@]}"
