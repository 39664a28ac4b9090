#!/usr/bin/env bash
# Compares `pmolap membench` with an independent C reference kernel (reference.c) on
# sequential reads and sequential non-temporal writes, 4 KiB individual accesses, with
# one thread and with all cores. Prints a Markdown table on stdout.
#
#   bench/membench-vs-reference/run.sh            # 2 GiB range, 3 rounds, 2 s x 5 reps
#   RANGE=1G ROUNDS=2 DURATION=1 REPS=3 bench/membench-vs-reference/run.sh
#
# Environment: RANGE (memory range, default 2G), ROUNDS (interleaved rounds per row,
# default 3), DURATION (seconds per rep, default 2), REPS (reps per run, default 5),
# THREADS_ALL (thread count of the "all cores" rows, default nproc), THREADS_LIST (the
# thread counts of the rows, default "1 THREADS_ALL"), PMOLAP (a pmolap binary to use
# instead of building one, e.g. on a machine without cargo), KERNEL (membench
# --kernel, default avx2 to match the AVX2 reference), KEEP (a directory to keep the raw
# outputs in; default: a temporary directory, removed at exit).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/bench/cleanup.sh"

RANGE="${RANGE:-2G}"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-2}"
REPS="${REPS:-5}"
THREADS_ALL="${THREADS_ALL:-$(nproc)}"
THREADS_LIST="${THREADS_LIST:-1 $THREADS_ALL}"
KERNEL="${KERNEL:-avx2}"

if [[ -n "${KEEP:-}" ]]; then
    work="$KEEP"
    mkdir -p "$work"
else
    work="$(mktemp -d)"
    bench_on_exit "$work"
fi

to_bytes() {
    local s="$1" n="${1%[kKmMgG]}"
    case "$s" in
        *[kK]) echo $((n << 10)) ;;
        *[mM]) echo $((n << 20)) ;;
        *[gG]) echo $((n << 30)) ;;
        *) echo "$n" ;;
    esac
}
range_bytes="$(to_bytes "$RANGE")"

echo "building reference.c and pmolap (release)..." >&2
gcc -O3 -mavx2 -pthread -o "$work/reference" "$here/reference.c"
if [[ -n "${PMOLAP:-}" ]]; then
    pmolap="$PMOLAP"
else
    (cd "$root" && cargo build --release --quiet)
    pmolap="$root/target/release/pmolap"
fi
[[ -x "$pmolap" ]] || { echo "no $pmolap after cargo build" >&2; exit 1; }

median() { # numbers on stdin -> their median
    python3 -c 'import statistics, sys; print("%.3f" % statistics.median(float(x) for x in sys.stdin.read().split()))'
}

# run_reference OP THREADS -> median GiB/s of one run
run_reference() {
    local op="$1" threads="$2" mode
    [[ "$op" == read ]] && mode=read || mode=ntwrite
    "$work/reference" "$mode" "$threads" "$range_bytes" 4096 "$DURATION" "$REPS" \
        | tee -a "$work/reference.log" | awk '$1 == "median" { print $3 }'
}

# run_membench OP THREADS -> median GiB/s of one run
run_membench() {
    local op="$1" threads="$2" out
    out="$work/membench-$op-$threads-$RANDOM.json"
    "$pmolap" membench --operation "$op" --pattern sequential --access-mode individual \
        --access-size 4K --threads "$threads" --pin cores --tier dram \
        --memory-range "$RANGE" --persist nt-store --duration "$DURATION" --reps "$REPS" \
        --kernel "$KERNEL" --json "$out" --quiet >&2
    python3 -c 'import json, sys
with open(sys.argv[1]) as f:
    print("%.3f" % json.load(f)["runs"][0]["summary"]["bandwidth_gib_s_median"])' "$out"
}

cpu="$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
echo "Machine: ${cpu:-unknown CPU}, nproc $(nproc), kernel $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "Settings: range $RANGE, 4 KiB individual access, ${DURATION} s x $REPS reps per run," \
    "$ROUNDS interleaved rounds per row (value: median of the run medians), membench --kernel $KERNEL"
echo
echo "| row | reference GiB/s | membench GiB/s | membench / reference |"
echo "|---|---:|---:|---:|"

for op in read write; do
    for threads in $THREADS_LIST; do
        ref=()
        mb=()
        for ((round = 0; round < ROUNDS; round++)); do
            # Alternate which side goes first, so drift (thermal, other load) cancels.
            if ((round % 2 == 0)); then
                ref+=("$(run_reference "$op" "$threads")")
                mb+=("$(run_membench "$op" "$threads")")
            else
                mb+=("$(run_membench "$op" "$threads")")
                ref+=("$(run_reference "$op" "$threads")")
            fi
            echo "  $op x$threads round $round: reference ${ref[-1]}, membench ${mb[-1]}" >&2
        done
        r="$(printf '%s\n' "${ref[@]}" | median)"
        m="$(printf '%s\n' "${mb[@]}" | median)"
        ratio="$(python3 -c 'import sys; r, m = map(float, sys.argv[1:]); print("%.1f%%" % (100 * m / r) if r > 0 else "n/a")' "$r" "$m")"
        [[ "$op" == read ]] && label="seq read" || label="seq nt-write + sfence"
        [[ "$threads" == 1 ]] && label="$label, 1 thread" || label="$label, $threads threads"
        echo "| $label | $r | $m | $ratio |"
    done
done
