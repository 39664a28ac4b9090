#!/usr/bin/env bash
# Runs `pmolap iobench` and fio side by side on equivalent jobs — sequential read with
# psync, O_DIRECT and io_uring, random read, random write (buffered, and with fdatasync
# after every write) — with the same file size per thread, threads and block size, in
# interleaved rounds, and prints a Markdown table (median of the rounds) and a machine line.
#
#   bench/iobench-vs-fio/run.sh                       # disk: $DISK_DIR, plus /dev/shm
#   SIZE=512M THREADS="1 2" ROUNDS=3 DISK_DIR=/mnt/nvme0 bench/iobench-vs-fio/run.sh
#
# Environment: DISK_DIR (a directory on the disk, default /var/tmp), SHM_DIR (default
# /dev/shm; empty to skip), SIZE (file per thread, default 256M), RAND_BYTES (bytes per
# thread of the random jobs, default 64M), SYNC_BYTES (bytes per thread of the
# random-write-with-fdatasync job, default 8M), THREADS (default "1 2"),
# ROUNDS (default 3), QD (io_uring queue depth, default 16), PMOLAP (the binary; default:
# built with cargo build --release), KEEP (directory to keep raw outputs in).
#
# Both sides time three runs on files written in full beforehand (pmolap: 3 repetitions,
# fio: 3 jobs), the page cache dropped before each, and take the median; the table shows
# the median over the rounds. (On a VM, reading a just-written file can be several times
# slower while the host writes it back; the median keeps that out of both sides.)
# Equivalences: fio `--invalidate=1` = pmolap's drop_cache (fdatasync + FADV_DONTNEED
# before each run); fio `--fadvise_hint=0` = pmolap `readahead: normal`; fio
# `--norandommap --randrepeat=0` = pmolap's uniform random pages (with replacement);
# fio `--fdatasync=1` = pmolap's buffer manager with `sync` (fdatasync after each write).
# pmolap's drop_cache fdatasyncs each file before FADV_DONTNEED; fio's invalidate only
# does the FADV_DONTNEED, which cannot drop dirty pages, so after a buffered random-write
# run the next fio run started with the previous run's 64 MiB still dirty and under
# writeback (runs 2 and 3 measured 0.35-0.47 GiB/s against 1.6 for run 1). The script
# therefore fsyncs fio's files (`sync FILE...`, untimed) before every fio run, as pmolap does.
# io_uring: pmolap submits everything queued in one io_uring_enter and reaps every
# completion there is (so adjacent O_DIRECT reads get merged by the block layer: 4319
# device reads for 65536 requests, against 66666 for fio's default job). fio's default
# submits one request per call and reaps one completion per call; the equivalent fio
# job is `--iodepth_batch_submit=QD --iodepth_batch_complete_min=1
# --iodepth_batch_complete_max=QD`, used by default. FIO_URING=single runs fio's default
# one-at-a-time job instead (not the equivalent of pmolap's; for comparison only).
# JOBS (a grep -E pattern on the job name) restricts the run to some jobs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

DISK_DIR="${DISK_DIR:-/var/tmp}"
SHM_DIR="${SHM_DIR-/dev/shm}"
SIZE="${SIZE:-256M}"
RAND_BYTES="${RAND_BYTES:-64M}"
SYNC_BYTES="${SYNC_BYTES:-8M}"
THREADS="${THREADS:-1 2}"
ROUNDS="${ROUNDS:-3}"
QD="${QD:-16}"
FIO_URING="${FIO_URING:-batch}"
JOBS="${JOBS:-.}"
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

if [[ -n "${KEEP:-}" ]]; then
    work="$KEEP"
    mkdir -p "$work"
else
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
fi

# job name | fio args | pmolap args | where (disk, shm or both)
jobs=(
    "seq read psync 4K|--rw=read --ioengine=psync --bs=4k|--workload table-scan --io pread --page-size 4K|both"
    "seq read O_DIRECT 4K|--rw=read --ioengine=psync --direct=1 --bs=4k|--workload table-scan --io direct --page-size 4K|disk"
    "seq read io_uring qd$QD 4K|--rw=read --ioengine=io_uring --iodepth=$QD $uring_batch --bs=4k|--workload table-scan --io io-uring --queue-depth $QD --page-size 4K|shm"
    "seq read io_uring+O_DIRECT qd$QD 4K|--rw=read --ioengine=io_uring --direct=1 --iodepth=$QD $uring_batch --bs=4k|--workload table-scan --io io-uring-direct --queue-depth $QD --page-size 4K|disk"
    "seq read psync 16K|--rw=read --ioengine=psync --bs=16k|--workload table-scan --io pread --page-size 16K|both"
    "rand read psync 4K|--rw=randread --ioengine=psync --bs=4k --norandommap --randrepeat=0 --io_size=$RAND_BYTES|--workload buffer-manager --io pread --page-size 4K --write-ratio 0 --bytes $RAND_BYTES|both"
    "rand write psync 4K|--rw=randwrite --ioengine=psync --bs=4k --norandommap --randrepeat=0 --io_size=$RAND_BYTES|--workload buffer-manager --io pread --page-size 4K --write-ratio 1 --no-sync --bytes $RAND_BYTES|both"
    "rand write psync+fdatasync 4K|--rw=randwrite --ioengine=psync --bs=4k --norandommap --randrepeat=0 --fdatasync=1 --io_size=$SYNC_BYTES|--workload buffer-manager --io pread --page-size 4K --write-ratio 1 --bytes $SYNC_BYTES|disk"
)

fio_gib() { # json file, rw (read|write) -> GiB/s
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); j=d["jobs"][0][sys.argv[2]]
print(j["bw_bytes"]/2**30)' "$1" "$2"
}
pm_gib() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); print(d["runs"][0]["summary"]["bandwidth_gib_s_median"])' "$1"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

dirs=("disk:$DISK_DIR")
[[ -n "$SHM_DIR" ]] && dirs+=("shm:$SHM_DIR")

echo "| where | job | threads | fio GiB/s | pmolap GiB/s | pmolap / fio |"
echo "|---|---|---:|---:|---:|---:|"
for d in "${dirs[@]}"; do
    where="${d%%:*}"; dir="${d#*:}"
    for job in "${jobs[@]}"; do
        IFS='|' read -r jname fargs pargs place <<<"$job"
        [[ "$place" != both && "$place" != "$where" ]] && continue
        grep -qE -- "$JOBS" <<<"$jname" || continue
        rw=read; [[ "$fargs" == *randwrite* ]] && rw=write
        for t in $THREADS; do
            f=(); p=()
            for r in $(seq "$ROUNDS"); do
                tag="$where-${jname// /_}-$t-$r"
                # fio's files written in full first (as pmolap prepares its files, and
                # not fallocated-only), then let the writeback settle; untimed.
                fio --name=iob --directory="$dir" --size="$SIZE" --numjobs="$t" --thread \
                    --rw=write --bs=1M --end_fsync=1 --output=/dev/null >/dev/null
                sync; sleep 1
                # Three fio runs on those files, as pmolap times three repetitions on its
                # prepared files; the median of each side's three is the round's figure.
                fr=()
                for k in 1 2 3; do
                    # No dirty pages left from the previous run (pmolap fdatasyncs too).
                    sync "$dir"/iob.*
                    # shellcheck disable=SC2086
                    fio --name=iob --directory="$dir" --size="$SIZE" --numjobs="$t" \
                        --group_reporting --invalidate=1 --fadvise_hint=0 --thread \
                        $fargs --output-format=json --output="$work/fio-$tag-$k.json" >/dev/null
                    fr+=("$(fio_gib "$work/fio-$tag-$k.json" "$rw")")
                done
                rm -f "$dir"/iob.*
                # shellcheck disable=SC2086
                "$PMOLAP" iobench --quiet --path "$dir" --threads "$t" --file-size "$SIZE" \
                    --reps 3 $pargs --json "$work/pm-$tag.json" >/dev/null
                f+=("$(median "${fr[@]}")")
                p+=("$(pm_gib "$work/pm-$tag.json")")
            done
            fm=$(median "${f[@]}"); pm=$(median "${p[@]}")
            awk -v w="$where" -v j="$jname" -v t="$t" -v f="$fm" -v p="$pm" \
                'BEGIN { printf "| %s | %s | %d | %.3f | %.3f | %.1f%% |\n", w, j, t, f, p, 100 * p / f }'
        done
    done
done
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
dev=$(df --output=source "$DISK_DIR" | tail -1)
echo
echo "Machine: $cpu, $(nproc) CPUs, Linux $(uname -r); disk: $DISK_DIR on $dev ($(findmnt -no FSTYPE --target "$DISK_DIR")); $(fio --version); file $SIZE per thread; median of $ROUNDS interleaved rounds; fio io_uring submission: $FIO_URING."
