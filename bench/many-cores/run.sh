#!/usr/bin/env bash
# The figures that need more cores than the 2-vCPU development machines have, in one short
# run (~6 min on 16 cores) with a prebuilt pmolap and no network: the machine's facts,
# SSB vs DuckDB at SF 10 on all threads (answers checked), membench vs the reference C
# kernel at 1, 8 and all threads, and membench's DRAM sweep by access size and threads
# (dram-sweep.yaml). See README.md.
#
#   PMOLAP=path/to/pmolap OUT=dir bench/many-cores/run.sh
#
# Environment: PMOLAP (default target/release/pmolap), OUT (where logs and JSON go,
# default target/bench-work/many-cores/out), WORK (data, default
# target/bench-work/many-cores), SF (default 10), PYTHONPATH must reach duckdb==2.0.0
# (bench/ssb-vs-duckdb/requirements.txt), QUERIES_SQL (default
# ../shared/ssb-reference/queries.sql). Each step runs even when an earlier one failed;
# the exit status is that of the last failure.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
PMOLAP="$(realpath "${PMOLAP:-$root/target/release/pmolap}")"
OUT="${OUT:-$root/target/bench-work/many-cores/out}"
WORK="${WORK:-$root/target/bench-work/many-cores}"
SF="${SF:-10}"
QUERIES_SQL="${QUERIES_SQL:-$root/../shared/ssb-reference/queries.sql}"
THREADS="$(nproc)"
mkdir -p "$OUT" "$WORK"
source "$root/bench/cleanup.sh"
bench_scratch "$WORK/tmp"
export TMPDIR="$WORK/tmp"
status=0
step() { # step NAME COMMAND... : runs it, its output in OUT/NAME.log, times it
    local name="$1" t0 rc
    shift
    t0=$(date +%s)
    echo "== $name ($(date -u +%H:%M:%S))"
    "$@" > "$OUT/$name.log" 2>&1
    rc=$?
    echo "   $name: exit $rc, $(( $(date +%s) - t0 )) s"
    ((rc == 0)) || status=$rc
    tail -n 25 "$OUT/$name.log"
}

machine() {
    uname -a
    echo "nproc $(nproc)"
    grep -m1 '^model name' /proc/cpuinfo
    grep -m1 -o -w 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' '
    echo
    free -g
    ls -d /sys/devices/system/node/node* 2>/dev/null || echo "no /sys/devices/system/node"
    command -v lscpu >/dev/null && lscpu
    df -h /dev/shm "$WORK"
}

step machine machine
step ssb-vs-duckdb python3 "$root/bench/ssb-vs-duckdb/ssb_vs_duckdb.py" --sf "$SF" \
    --threads "$THREADS" --reps 5 --work "$WORK" --pmolap "$PMOLAP" \
    --queries-sql "$QUERIES_SQL" --out "$OUT/ssb-vs-duckdb-sf$SF.json"
step membench-vs-reference env PMOLAP="$PMOLAP" RANGE=2G ROUNDS=2 DURATION=1 REPS=2 \
    THREADS_LIST="1 8 $THREADS" bash "$root/bench/membench-vs-reference/run.sh"
step dram-sweep "$PMOLAP" membench --config "$here/dram-sweep.yaml" --quiet \
    --json "$OUT/dram-sweep.json"
exit $status
