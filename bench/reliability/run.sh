#!/usr/bin/env bash
# Issue 11's reliability record: ordinary mistakes tried many times against the release
# binary, each checked for "nothing lost, nothing destroyed".
#  1. kill -9 of `ssb load` at a random moment, over an existing database: afterwards the
#     database answers all 13 SSB queries exactly as before, or (if the kill came after
#     the commit) exactly as the new one; nothing but DATABASE, LOCK and one g<N>/ stays
#     after the next load.
#  2. two `ssb load` into the same directory at once: one fails at once naming the
#     other; the database answers as one of the two loads.
#  3. a reader (`ssb run`) started during a load: it fails at once naming the writer and
#     never reports damage, or (after the commit) answers as the new database.
# Usage: bash bench/reliability/run.sh [ROUNDS] (default 20). Prints counts per case.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-20}
cargo build --release --locked -q
P=$PWD/target/release/pmolap
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
answers() { "$P" ssb run --quiet --reps 1 --data "$1" --answers "$2" >/dev/null 2>&1; }
"$P" ssb load --quiet --sf 0.01 --out "$W/old" && answers "$W/old" "$W/a-old.json"
"$P" ssb load --quiet --sf 0.05 --out "$W/new" && answers "$W/new" "$W/a-new.json"
same_as() { cmp -s "$W/a.json" "$W/a-$1.json"; }

kill_old=0; kill_new=0; kill_bad=0
for i in $(seq "$ROUNDS"); do
  rm -rf "$W/db"; "$P" ssb load --quiet --sf 0.01 --out "$W/db"
  "$P" ssb load --quiet --sf 0.05 --out "$W/db" & pid=$!
  sleep "0.$(( RANDOM % 9 + 1 ))$(( RANDOM % 10 ))"
  kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  answers "$W/db" "$W/a.json"
  if same_as old; then kill_old=$((kill_old+1)); elif same_as new; then kill_new=$((kill_new+1)); else kill_bad=$((kill_bad+1)); fi
  "$P" ssb load --quiet --sf 0.01 --out "$W/db"
  n=$(ls "$W/db" | wc -l); [ "$n" -eq 3 ] || { echo "round $i: leftovers: $(ls "$W/db")"; kill_bad=$((kill_bad+1)); }
done
echo "kill -9 during a load: $ROUNDS tries, old database $kill_old, new database $kill_new, damaged/mixed/leftovers $kill_bad"

pair_ok=0; pair_bad=0
for i in $(seq "$ROUNDS"); do
  rm -rf "$W/db"; "$P" ssb load --quiet --sf 0.01 --out "$W/db"
  "$P" ssb load --quiet --sf 0.05 --out "$W/db" 2>"$W/e1" & p1=$!
  "$P" ssb load --quiet --sf 0.05 --out "$W/db" 2>"$W/e2" & p2=$!
  r1=0; r2=0; wait "$p1" || r1=$?; wait "$p2" || r2=$?
  answers "$W/db" "$W/a.json"
  if [ $((r1 + r2)) -gt 0 ] && [ "$r1" -eq 0 -o "$r2" -eq 0 ] && grep -qh "is being written by pid" "$W/e1" "$W/e2" && same_as new; then
    pair_ok=$((pair_ok+1))
  else pair_bad=$((pair_bad+1)); echo "round $i: rc $r1/$r2: $(cat "$W/e1" "$W/e2")"; fi
done
echo "two loads at once: $ROUNDS tries, one refused naming the other and the database whole $pair_ok, otherwise $pair_bad"

read_refused=0; read_new=0; read_bad=0
for i in $(seq "$ROUNDS"); do
  rm -rf "$W/db"; "$P" ssb load --quiet --sf 0.01 --out "$W/db"
  "$P" ssb load --quiet --sf 0.05 --out "$W/db" & pid=$!
  sleep "0.$(( RANDOM % 9 + 1 ))"
  if "$P" ssb run --quiet --reps 1 --data "$W/db" --answers "$W/a.json" >/dev/null 2>"$W/e"; then
    if same_as new || same_as old; then read_new=$((read_new+1)); else read_bad=$((read_bad+1)); fi
  elif grep -q "is being written by pid" "$W/e" && ! grep -q "damaged" "$W/e"; then read_refused=$((read_refused+1))
  else read_bad=$((read_bad+1)); echo "round $i: $(cat "$W/e")"; fi
  wait "$pid"
done
echo "a reader during a load: $ROUNDS tries, refused naming the writer $read_refused, answered as a whole database $read_new, wrong or 'damaged' $read_bad"
