#!/usr/bin/env bash
# Times `pmolap ssb gen` (all five SSB tables, .tbl text) and, when SSB_DBGEN names an
# SSBM dbgen binary, the original dbgen on the same machine in the same run, checks that
# both wrote identical files, and prints the speedup. Prints a Markdown table on stdout.
#
#   bench/ssb-gen/run.sh                              # SF 1, all cores, best of 3
#   SF10=1 bench/ssb-gen/run.sh                       # also SF 10
#   SSB_DBGEN=/path/to/dbgen bench/ssb-gen/run.sh     # also dbgen at SF 1 + speedup
#
# Environment: SFS (scale factors, default "1"; SF10=1 appends 10), THREADS (pmolap
# formatting threads, default nproc), REPS (repetitions, best is reported, default 3),
# SSB_DBGEN (dbgen binary; its dists.dss is looked up next to it unless SSB_DISTS names
# the file; dbgen is run once per SF in {SFS} ∩ {1}, as `TZ=UTC dbgen -s 1 -T a -f`),
# PMOLAP (the pmolap binary; default: built here with `cargo build --release`), KEEP (a
# directory to keep the generated files in; default: a temporary directory, removed).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/bench/cleanup.sh"

SFS="${SFS:-1}"
if [[ -n "${SF10:-}" ]]; then SFS="$SFS 10"; fi
THREADS="${THREADS:-$(nproc)}"
REPS="${REPS:-3}"

if [[ -n "${KEEP:-}" ]]; then
    work="$KEEP"
    mkdir -p "$work"
else
    work="$(mktemp -d)"
    bench_on_exit "$work"
fi

if [[ -z "${PMOLAP:-}" ]]; then
    (cd "$root" && cargo build --release -q -p pmolap) >&2
    PMOLAP="$root/target/release/pmolap"
fi

# Wall seconds of a command (stdout/stderr discarded), via bash's own clock.
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}

min() { printf '%s\n' "$@" | sort -g | head -1; }

rows_of() { cat "$1"/*.tbl | wc -l; }

md5_of() { (cd "$1" && md5sum customer.tbl date.tbl lineorder.tbl part.tbl supplier.tbl); }

echo "# SSB generation, $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))"
echo
echo "| generator | SF | threads | best of | seconds | rows | M rows/s | speedup vs dbgen |"
echo "|---|---|---|---|---|---|---|---|"

for sf in $SFS; do
    out="$work/pmolap-sf$sf"
    times=()
    for ((r = 0; r < REPS; r++)); do
        rm -rf "$out"
        times+=("$(seconds "$PMOLAP" ssb gen --sf "$sf" --out "$out" --threads "$THREADS")")
    done
    ours=$(min "${times[@]}")
    rows=$(rows_of "$out")
    speedup="-"
    if [[ -n "${SSB_DBGEN:-}" && "$sf" == 1 ]]; then
        dists="${SSB_DISTS:-$(dirname "$SSB_DBGEN")/dists.dss}"
        db="$work/dbgen-sf$sf"
        rm -rf "$db" && mkdir -p "$db"
        cp "$dists" "$db/dists.dss"
        theirs=$(cd "$db" && seconds env TZ=UTC "$SSB_DBGEN" -s "$sf" -T a -f)
        if diff <(md5_of "$db") <(md5_of "$out") >/dev/null; then same="identical files"; else same="FILES DIFFER"; fi
        speedup=$(printf '%.1fx' "$(echo "$theirs / $ours" | bc -l)")
        printf '| dbgen | %s | 1 | 1 | %.2f | %s | %.2f | 1.0x |\n' "$sf" "$theirs" "$rows" \
            "$(echo "$rows / $theirs / 1000000" | bc -l)"
        speedup="$speedup ($same)"
        rm -rf "$db"
    fi
    printf '| pmolap | %s | %s | %s | %.2f | %s | %.2f | %s |\n' "$sf" "$THREADS" "$REPS" "$ours" \
        "$rows" "$(echo "$rows / $ours / 1000000" | bc -l)" "$speedup"
    if [[ -z "${KEEP:-}" ]]; then rm -rf "$out"; fi
done
