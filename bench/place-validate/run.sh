#!/usr/bin/env bash
# Predicted vs measured for the placement advisor (issue 12, item 6) on this machine's
# real tiers: the SSB workload's counts in DRAM, a profile of the disk measured here, then
# the paper's placements with the slow structures on the disk (a) cold — pages dropped
# before every query — and (b) behind a page cache bounded by a memory cgroup.
# Usage: bench/place-validate/run.sh [SF] [REPS] [CACHE]   (defaults: 1 3 64MiB)
# Writes bench/place-validate/out/{workload,profile-disk,validate-cold,validate-cache}.json
# and the Pareto plots; prints the tables. The database lives under data/ssb (the disk).
set -euo pipefail
cd "$(dirname "$0")/../.."
SF=${1:-1}
REPS=${2:-3}
CACHE=${3:-64MiB}
OUT=bench/place-validate/out
mkdir -p "$OUT"
cargo build --quiet --release
P=target/release/pmolap
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, data on $(stat -f -c %T data 2>/dev/null || echo '?')"
$P place workload --sf "$SF" --reps "$REPS" -o "$OUT/workload.json" --overwrite
mkdir -p data/place-profile
rm -f "$OUT/profile-disk.json"
$P place profile --tier file:data/place-profile --name disk -o "$OUT/profile-disk.json"
$P place validate --sf "$SF" --reps "$REPS" --workload "$OUT/workload.json" \
  --profile "$OUT/profile-disk.json" --setting cold -o "$OUT/validate-cold.json" --overwrite
if $P place validate --sf "$SF" --reps "$REPS" --workload "$OUT/workload.json" \
  --profile "$OUT/profile-disk.json" --setting "cache:$CACHE" -o "$OUT/validate-cache.json" --overwrite; then
  :
else
  echo "cache setting skipped (see the error above)"
fi
for f in "$OUT"/validate-*.json; do
  $P plot "$f" --out "$OUT/plots" || true
done
