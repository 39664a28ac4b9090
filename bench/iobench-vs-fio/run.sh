#!/usr/bin/env bash
# Runs `pmolap iobench` and fio side by side on equivalent jobs — sequential read with
# psync, O_DIRECT and io_uring, random read, random write (buffered, and with fdatasync
# after every write) — on the *same files*, with the same threads, block size and bytes,
# in adjacent pairs, and prints a Markdown table and writes JSON (config, machine, every
# pair's figures).
#
#   bench/iobench-vs-fio/run.sh                       # disk: $DISK_DIR, plus /dev/shm
#   DISK_DIR=/mnt/nvme0 THREADS="1 4 16" PAIRS=9 bench/iobench-vs-fio/run.sh
#
# Environment: DISK_DIR (a directory on the disk, default /var/tmp), SHM_DIR (default
# /dev/shm; empty to skip), SIZE (data file per thread on the disk, default 1G), SHM_SIZE
# (on /dev/shm, default 4G), DIRECT_BYTES (bytes per thread of the O_DIRECT psync job,
# default 64M), URING_BYTES (io_uring+O_DIRECT on the disk, default 512M), RAND_BYTES
# (random read on the disk, default 64M), WRITE_BYTES (buffered random write on the disk,
# default 512M), SYNC_BYTES (random write + fdatasync, default 32M), SHM_RAND_BYTES
# (random read and write on /dev/shm, default 1G), THREADS (default "1 2"), PAIRS
# (default 7), QD (io_uring queue depth, default 16), FIO_LAT (reduced|full), FIO_URING
# (batch|single), JOBS (a grep -E pattern on the job
# name: run only those), PMOLAP (the binary; default: built with cargo build --release),
# OUT (the JSON, default results/iobench-vs-fio-<time>.json), KEEP (a directory to keep
# the raw fio and pmolap outputs in). The defaults make each run take about a second on
# a 2-vCPU VM with a virtio disk; on a faster device, raise the bytes.
#
# Method (bench/iobench-vs-fio/README.md has the why of each point). pmolap prepares
# each thread's data file once per directory (`--reuse-files`: random bytes, written in
# full, named pmolap-iobench-data-t<T>-s0.dat) and fio reads and writes those very files
# (`--filename_format`). Each pair is one fio run and one pmolap run (one repetition)
# straight after each other, the order alternating; a warm-up pair per job is not
# counted. The table gives each side's median, the median of the pairs' ratios with
# their range, and the ratio of the best runs. Each run is sized in bytes and never
# wraps over its file. Before every run, on both sides and outside both timings, each
# file is fdatasynced and dropped (POSIX_FADV_DONTNEED; fio runs with --invalidate=0).
# pmolap's buffer-manager equivalents use a one-page pool, as fio has one buffer at
# iodepth 1. FIO_LAT=reduced (default) runs fio with --gtod_reduce=1 (no per-I/O clock
# reads; pmolap keeps its two per operation), FIO_LAT=full with fio's default accounting.
# io_uring: pmolap submits everything queued in one io_uring_enter and reaps every
# completion there is; the equivalent fio job is `--iodepth_batch_submit=QD
# --iodepth_batch_complete_min=1 --iodepth_batch_complete_max=QD` (default);
# FIO_URING=single runs fio's default one-at-a-time job instead (for comparison only).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

DISK_DIR="${DISK_DIR:-/var/tmp}"
SHM_DIR="${SHM_DIR-/dev/shm}"
SIZE="${SIZE:-1G}"
SHM_SIZE="${SHM_SIZE:-4G}"
DIRECT_BYTES="${DIRECT_BYTES:-64M}"
URING_BYTES="${URING_BYTES:-512M}"
RAND_BYTES="${RAND_BYTES:-64M}"
WRITE_BYTES="${WRITE_BYTES:-512M}"
SYNC_BYTES="${SYNC_BYTES:-32M}"
SHM_RAND_BYTES="${SHM_RAND_BYTES:-1G}"
THREADS="${THREADS:-1 2}"
PAIRS="${PAIRS:-7}"
QD="${QD:-16}"
FIO_URING="${FIO_URING:-batch}"
JOBS="${JOBS:-.}"
FIO_LAT="${FIO_LAT:-reduced}"
if [[ "$FIO_LAT" == reduced ]]; then fio_lat="--gtod_reduce=1"; else fio_lat=""; fi
if [[ "$FIO_URING" == batch ]]; then
    uring_batch="--iodepth_batch_submit=$QD --iodepth_batch_complete_min=1 --iodepth_batch_complete_max=$QD"
else
    uring_batch=""
fi

if ! command -v fio >/dev/null; then
    echo "fio not found; installing it (apt-get install -y fio)" >&2
    apt-get install -y fio >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y fio >/dev/null; }
fi
if [[ -z "${PMOLAP:-}" ]]; then
    (cd "$root" && cargo build --release --quiet -p pmolap)
    PMOLAP="$root/target/release/pmolap"
fi
OUT="${OUT:-$root/results/iobench-vs-fio-$(date +%Y%m%d-%H%M%S).json}"
mkdir -p "$(dirname "$OUT")"

if [[ -n "${KEEP:-}" ]]; then
    work="$KEEP"
    mkdir -p "$work"
else
    work="$(mktemp -d)"
fi
made_dirs=()
cleanup() {
    for d in "${made_dirs[@]}"; do rm -f "$d"/pmolap-iobench-data-t*-s0.dat; done
    [[ -z "${KEEP:-}" ]] && rm -rf "$work"
    return 0
}
trap cleanup EXIT
# Ctrl-C, TERM and HUP end the script through exit, so that cleanup runs.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# job name | fio args | pmolap args | bytes per thread on the disk | on /dev/shm
# ("file": one pass over the file; "-": the job does not run there).
jobs=(
    "seq read psync 4K|--rw=read --ioengine=psync --bs=4k|--workload table-scan --io pread --page-size 4K|file|file"
    "seq read O_DIRECT 4K|--rw=read --ioengine=psync --direct=1 --bs=4k|--workload table-scan --io direct --page-size 4K|$DIRECT_BYTES|-"
    "seq read io_uring qd$QD 4K|--rw=read --ioengine=io_uring --iodepth=$QD $uring_batch --bs=4k|--workload table-scan --io io-uring --queue-depth $QD --page-size 4K|-|file"
    "seq read io_uring+O_DIRECT qd$QD 4K|--rw=read --ioengine=io_uring --direct=1 --iodepth=$QD $uring_batch --bs=4k|--workload table-scan --io io-uring-direct --queue-depth $QD --page-size 4K|$URING_BYTES|-"
    "seq read psync 16K|--rw=read --ioengine=psync --bs=16k|--workload table-scan --io pread --page-size 16K|file|file"
    "rand read psync 4K|--rw=randread --ioengine=psync --bs=4k --norandommap --randrepeat=0|--workload buffer-manager --io pread --page-size 4K --pool-size 4K --write-ratio 0|$RAND_BYTES|$SHM_RAND_BYTES"
    "rand write psync 4K|--rw=randwrite --ioengine=psync --bs=4k --norandommap --randrepeat=0|--workload buffer-manager --io pread --page-size 4K --pool-size 4K --write-ratio 1 --no-sync|$WRITE_BYTES|$SHM_RAND_BYTES"
    "rand write psync+fdatasync 4K|--rw=randwrite --ioengine=psync --bs=4k --norandommap --randrepeat=0 --fdatasync=1|--workload buffer-manager --io pread --page-size 4K --pool-size 4K --write-ratio 1|$SYNC_BYTES|-"
)

to_bytes() { numfmt --from=iec "$1"; }
max_threads=$(printf '%s\n' $THREADS | sort -n | tail -1)

# pmolap's drop before each run, done the same way for fio, outside its timing: fdatasync
# and POSIX_FADV_DONTNEED of each file. (fio's own `--invalidate=1` does the DONTNEED
# inside the job, after its clock has started: dropping 1 GiB of cached pages cost fio
# ~20% of a 512 MiB buffered random-write run here; and it cannot drop dirty pages.)
drop_cache() {
    python3 -c 'import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY)
    os.fdatasync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)' "$@"
}

fio_gib() { # json file, rw (read|write) -> GiB/s
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); j=d["jobs"][0][sys.argv[2]]
print(j["bw_bytes"]/2**30)' "$1" "$2"
}
pm_gib() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); print(d["runs"][0]["summary"]["bandwidth_gib_s_median"])' "$1"
}

raw="$work/pairs.tsv"
: >"$raw"
dirs=("disk:$DISK_DIR:$SIZE")
[[ -n "$SHM_DIR" ]] && dirs+=("shm:$SHM_DIR:$SHM_SIZE")

for d in "${dirs[@]}"; do
    IFS=: read -r where dir fsize <<<"$d"
    made_dirs+=("$dir")
    # The data files, once per directory, for the most threads (fewer threads use the
    # first files); untimed. A one-pass scan that is thrown away.
    echo "preparing $max_threads x $fsize in $dir" >&2
    "$PMOLAP" iobench --quiet --reuse-files --path "$dir" --threads "$max_threads" \
        --file-size "$fsize" --reps 1 --workload table-scan --io pread --page-size 1M \
        --json "$work/prepare-$where.json" >/dev/null
    sync
    sleep 2
    for job in "${jobs[@]}"; do
        IFS='|' read -r jname fargs pargs disk_bytes shm_bytes <<<"$job"
        bytes="$disk_bytes"; [[ "$where" == shm ]] && bytes="$shm_bytes"
        [[ "$bytes" == - ]] && continue
        grep -qE -- "$JOBS" <<<"$jname" || continue
        [[ "$bytes" == file ]] && bytes="$fsize"
        rw=read; [[ "$fargs" == *randwrite* ]] && rw=write
        for t in $THREADS; do
            echo "$where: $jname, $t threads, $bytes per thread" >&2
            files=()
            for ((i = 0; i < t; i++)); do files+=("$dir/pmolap-iobench-data-t$i-s0.dat"); done
            run_fio() { # output json
                drop_cache "${files[@]}"
                # shellcheck disable=SC2086,SC2016
                fio --name=iob --directory="$dir" \
                    --filename_format='pmolap-iobench-data-t$jobnum-s0.dat' \
                    --size="$fsize" --io_size="$bytes" --numjobs="$t" --thread \
                    --group_reporting --invalidate=0 --fadvise_hint=0 $fio_lat \
                    $fargs --output-format=json --output="$1" >/dev/null
            }
            run_pm() { # output json
                # shellcheck disable=SC2086
                "$PMOLAP" iobench --quiet --reuse-files --path "$dir" --threads "$t" \
                    --file-size "$fsize" --bytes "$bytes" --reps 1 $pargs --json "$1" >/dev/null
            }
            tag="$where-${jname// /_}-$t"
            run_fio "$work/fio-$tag-warm.json"
            run_pm "$work/pm-$tag-warm.json"
            for ((k = 1; k <= PAIRS; k++)); do
                if ((k % 2)); then
                    run_fio "$work/fio-$tag-$k.json"
                    run_pm "$work/pm-$tag-$k.json"
                else
                    run_pm "$work/pm-$tag-$k.json"
                    run_fio "$work/fio-$tag-$k.json"
                fi
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$where" "$jname" "$t" \
                    "$(to_bytes "$bytes")" "$k" "$(fio_gib "$work/fio-$tag-$k.json" "$rw")" \
                    "$(pm_gib "$work/pm-$tag-$k.json")" >>"$raw"
            done
        done
    done
    rm -f "$dir"/pmolap-iobench-data-t*-s0.dat
done

machine_json="$work/prepare-disk.json"
python3 - "$raw" "$OUT" "$machine_json" "$DISK_DIR" "$SHM_DIR" "$(fio --version)" \
    "$PAIRS" "$FIO_URING" "$QD" "$FIO_LAT" <<'EOF'
import json, platform, statistics, sys, time
raw, out, machine_json, disk_dir, shm_dir, fio_version, pairs, fio_uring, qd, fio_lat = sys.argv[1:]
rows = {}
for line in open(raw):
    where, job, t, b, k, f, p = line.rstrip("\n").split("\t")
    rows.setdefault((where, job, int(t), int(b)), []).append((int(k), float(f), float(p)))
try:
    pm = json.load(open(machine_json))
    machine, devices = pm.get("machine"), pm.get("devices")
except (OSError, ValueError):
    machine, devices = None, None
result = {
    "kind": "iobench-vs-fio",
    "started_unix": int(time.time()),
    "config": {"disk_dir": disk_dir, "shm_dir": shm_dir, "pairs": int(pairs),
               "fio_uring": fio_uring, "fio_lat": fio_lat, "queue_depth": int(qd)},
    "fio_version": fio_version,
    "kernel": platform.release(),
    "machine": machine,
    "devices": devices,
    "rows": [],
}
print("| where | job | threads | bytes/thread | fio GiB/s | pmolap GiB/s | pmolap / fio "
      "| pair range | best / best |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
within = 0
for (where, job, t, b), ps in rows.items():
    f = statistics.median(x[1] for x in ps)
    p = statistics.median(x[2] for x in ps)
    ratios = [x[2] / x[1] for x in ps if x[1] > 0]
    r = statistics.median(ratios)
    within += abs(r - 1) <= 0.05
    best = max(x[2] for x in ps) / max(x[1] for x in ps)
    mib = b / 2**20
    size = f"{mib / 1024:g} GiB" if mib >= 1024 else f"{mib:g} MiB"
    print(f"| {where} | {job} | {t} | {size} | {f:.3f} | {p:.3f} | {100 * r:.1f}% "
          f"| {100 * min(ratios):.0f}–{100 * max(ratios):.0f}% | {100 * best:.1f}% |")
    result["rows"].append({
        "where": where, "job": job, "threads": t, "bytes_per_thread": b,
        "fio_gib_s_median": f, "pmolap_gib_s_median": p, "ratio_median": r,
        "ratio_best": best,
        "pairs": [{"pair": k, "fio_gib_s": fx, "pmolap_gib_s": px} for k, fx, px in ps],
    })
print()
print(f"{within} of {len(rows)} rows within 5% (median of {pairs} paired ratios).")
cpu = (machine or {}).get("cpu_model") or platform.processor()
print(f"Machine: {cpu}, Linux {platform.release()}; {fio_version}; fio io_uring "
      f"submission: {fio_uring}; fio latency accounting: {fio_lat}; JSON: {out}")
json.dump(result, open(out, "w"), indent=2)
EOF
