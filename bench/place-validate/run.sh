#!/usr/bin/env bash
# Predicted vs measured for the placement advisor (issue 33) on this machine's real tiers:
# the workload's counts and pages recorded in DRAM, a profile of the disk measured here,
# then every placement `place advise` writes (budgets 0-50 %, targets 25-90 %), the
# paper's fixed ones and the baselines at equal DRAM bytes, with the slow structures on
# the disk, in four settings: cold (pages dropped before every query) and a page cache
# bounded by a memory cgroup to 25, 50 and 100 % of the bytes the workload accesses.
# ROUNDS alternated rounds: each round runs every setting once (round-robin), so drift
# of the machine spreads over all settings alike. REPS repetitions per placement and
# round: the cache settings time REPS passes after one shared warm-up pass; the cold
# setting opens the database once per placement, warms each query up once and drops
# every file's pages before each timed run. Every timed run is paired with a run of the
# same query on an all-DRAM reference database open for the whole run, the reference
# first in even repetitions and second in odd ones: REPS even (default 4) balances them.
# Before every placement each run samples the
# disk's page costs on the database's own files: the page model's `predicted` uses their
# medians, the promise the profile's calibrated with the workload's samples (tables.md, last
# table: both).
# Every run also records what the device did (bytes read, major faults): tables.md has
# them beside the page model's prediction (the last table).
# Past REPS, a placement's timed runs go on until they add up to MIN_TIME seconds (default
# 2; at most 3 x REPS, at least 5 repetitions): a placement that reads little from the
# disk runs in about the all-DRAM time, and one disturbed run of a query (the host takes
# the CPU for up to a third of a second now and then) would decide its figure.
# Usage: [PROFILE_FLAGS=--quick] [MIN_TIME=2] bench/place-validate/run.sh [SF] [ROUNDS] [REPS]
#   (defaults: 1 3 4; PROFILE_FLAGS go to `place profile`: --quick only to check the script)
# Writes bench/place-validate/out/sf$SF/: workload.json, profile-disk.json,
# validate-SETTING-rROUND.json, tables.md (the issue's tables, markdown: paste into
# docs/results.md) and the plots of round 1. The database lives under data/ssb (the disk).
set -euo pipefail
cd "$(dirname "$0")/../.."
SF=${1:-1}
ROUNDS=${2:-3}
REPS=${3:-4}
MIN_TIME=${MIN_TIME:-2}
OUT=bench/place-validate/out/sf$SF
mkdir -p "$OUT"
cargo build --quiet --release -p pmolap
P=target/release/pmolap
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, data on $(stat -f -c %T data 2>/dev/null || echo '?')"
$P place workload --sf "$SF" --reps "$REPS" -o "$OUT/workload.json" --overwrite
mkdir -p data/place-profile
$P place profile --tier file:data/place-profile --name disk -o "$OUT/profile-disk.json" --overwrite --quiet ${PROFILE_FLAGS:-}
ACCESSED=$(python3 bench/place-validate/accessed_bytes.py "$OUT/workload.json")
echo "accessed bytes: $ACCESSED"
SETTINGS=(cold "cache:$((ACCESSED / 4))" "cache:$((ACCESSED / 2))" "cache:$ACCESSED")
NAMES=(cold cache25 cache50 cache100)
rm -f "$OUT"/validate-*.json
for r in $(seq 1 "$ROUNDS"); do
  for i in "${!SETTINGS[@]}"; do
    echo "round $r/$ROUNDS: ${NAMES[$i]} (${SETTINGS[$i]})"
    $P place validate --sf "$SF" --reps "$REPS" --min-time "$MIN_TIME" --workload "$OUT/workload.json" \
      --profile "$OUT/profile-disk.json" --setting "${SETTINGS[$i]}" \
      -o "$OUT/validate-${NAMES[$i]}-r$r.json" --overwrite --quiet >"$OUT/validate-${NAMES[$i]}-r$r.txt"
  done
done
$P place tables "$OUT"/validate-*.json --out "$OUT/tables.md" --overwrite
for f in "$OUT"/validate-*-r1.json; do
  $P plot "$f" --out "$OUT/plots" || true
done
