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
#  4. (issue 32) a reader (`hash check`) during a Dash build: refused naming the writer,
#     or (after the close) it passes; afterwards the table holds every item, no more, no
#     fewer ("lost" counts the difference).
#  5. (issue 32) kill -9 at a random moment of `hash bench --tier file:DIR` (region and
#     recovery files) and of `pg tpch` (cluster directories, the server's SysV segment,
#     /dev/shm/PostgreSQL.*): what is left once the next run of the same command has
#     started counts as a leftover; for pg also kill -9 of the command together with
#     initdb's bootstrap or single-user backend. The pg part is skipped without PostgreSQL.
# Usage: bash bench/reliability/run.sh [ROUNDS] (default 20). Prints counts per case.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-20}
cargo build --release --locked -q
P=$PWD/target/release/pmolap
source bench/cleanup.sh
W=$(mktemp -d)
bench_on_exit "$W"
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

# 4. A reader during a Dash build (on tmpfs where there is one: every insert is persisted).
S=$W
if [ -d /dev/shm ]; then S=$(mktemp -d /dev/shm/pmolap-rel-XXXX); bench_on_exit "$S"; fi
ITEMS=200000
dash_refused=0; dash_passed=0; dash_bad=0; dash_lost=0
for i in $(seq "$ROUNDS"); do
  rm -f "$S/t.dash" "$S/t.dash.lock"
  "$P" hash build --items "$ITEMS" --seed "$i" "$S/t.dash" >/dev/null & pid=$!
  sleep "0.$(( RANDOM % 3 ))$(( RANDOM % 10 ))"
  while kill -0 "$pid" 2>/dev/null; do
    if "$P" hash check "$S/t.dash" >"$W/c.json" 2>"$W/e"; then dash_passed=$((dash_passed+1))
    elif grep -q "is being written by pid" "$W/e"; then dash_refused=$((dash_refused+1))
    elif [ -e "$S/t.dash" ]; then dash_bad=$((dash_bad+1)); echo "round $i: $(cat "$W/e")"; fi
  done
  wait "$pid" || { dash_bad=$((dash_bad+1)); echo "round $i: the build failed"; }
  if "$P" hash check "$S/t.dash" >"$W/c.json" 2>"$W/e"; then
    n=$(sed -n 's/^ *"items": \([0-9]*\),$/\1/p' "$W/c.json")
    dash_lost=$((dash_lost + (n > ITEMS ? n - ITEMS : ITEMS - n)))
  else dash_bad=$((dash_bad+1)); echo "round $i: final check: $(cat "$W/e")"; fi
done
echo "a reader during a Dash build: $ROUNDS builds of $ITEMS items, checks refused naming the writer $dash_refused, passed after the build $dash_passed, wrong $dash_bad; items lost or duplicated $dash_lost"

# 5. kill -9 leftovers: hash bench on a file tier (region and recovery files).
mkdir -p "$S/tier" "$S/rec"
# `exec`: a function run in the background is a subshell; without exec, `$!` would be that
# subshell, kill -9 would miss pmolap, and the orphan would still hold its files when the
# next run looks (seen once in 20 rounds before this).
hb() { exec "$P" hash bench --quiet --keys 1000 --threads 1 --tier "file:$S/tier@$1" \
  --recovery-items 100000 --recovery-dir "$S/rec" --out "$W/hashbench.json"; }
hash_left=0
for i in $(seq "$ROUNDS"); do
  hb 200000 >/dev/null 2>&1 & pid=$!
  sleep "0.$(( RANDOM % 9 + 1 ))$(( RANDOM % 10 ))"
  kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  (hb 2000) >/dev/null 2>&1 || { echo "round $i: the next run failed"; hash_left=$((hash_left+1)); }
  n=$(find "$S/tier" "$S/rec" -mindepth 1 | wc -l)
  [ "$n" -eq 0 ] || { echo "round $i: left: $(find "$S/tier" "$S/rec" -mindepth 1)"; hash_left=$((hash_left+n)); }
done
echo "kill -9 of hash bench on a file tier: $ROUNDS tries, files left after the next run $hash_left"

# 5. kill -9 leftovers: pg tpch (needs PostgreSQL; as root the server runs as postgres).
if [ -n "${PMOLAP_PG_BIN:-}" ] || ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || command -v pg_config >/dev/null; then
  PGW=$(mktemp -d /var/tmp/pmolap-rel-XXXX); chmod 755 "$PGW"; mkdir -m 755 "$PGW/work" "$PGW/tier"
  bench_on_exit "$PGW"
  pg_left=0; pg_seen=0
  seg_of() { cat "$1"/pmolap-pg-*/data/postmaster.pid 2>/dev/null | sed -n 7p | awk 'NF == 2 { print $1 " " $2 }' || true; }
  for i in $(seq "$ROUNDS"); do
    ls /dev/shm | grep '^PostgreSQL\.' | sort >"$W/shm-before" || true
    "$P" pg tpch --quiet --sf 0.01 --reps 5 --no-baseline --tier "$PGW/tier" --work-dir "$PGW/work" >/dev/null 2>&1 & pid=$!
    seg=""; t=0
    while [ -z "$seg" ] && [ "$t" -lt 600 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; t=$((t+1)); seg=$(seg_of "$PGW/work"); done
    sleep "$(( RANDOM % 4 )).$(( RANDOM % 10 ))"
    kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    [ -n "$seg" ] && pg_seen=$((pg_seen+1))
    # The next run (its start sweeps what a killed watcher would have left).
    "$P" pg tpch --quiet --sf 0.01 --reps 1 --queries 6 --no-baseline --tier "$PGW/tier" --work-dir "$PGW/work" >/dev/null 2>&1 \
      || { echo "round $i: the next run failed"; pg_left=$((pg_left+1)); }
    dirs=$(find "$PGW/work" "$PGW/tier" -mindepth 1 -maxdepth 1 -name 'pmolap-pg-*' | wc -l)
    segs=0; [ -n "$seg" ] && awk -v k="${seg% *}" -v id="${seg#* }" '$1 == k && $2 == id { f = 1 } END { exit !f }' /proc/sysvipc/shm && segs=1
    shm=$(ls /dev/shm | grep '^PostgreSQL\.' | sort | comm -13 "$W/shm-before" - | grep -c . || true)
    n=$((dirs + segs + shm))
    [ "$n" -eq 0 ] || { echo "round $i: left: $dirs directories, $segs SysV segment, $shm /dev/shm files"; pg_left=$((pg_left+n)); }
  done
  echo "kill -9 of pg tpch: $ROUNDS tries ($pg_seen with the server up), directories, SysV segments and /dev/shm files left after the next run $pg_left"
  # kill -9 of the command together with initdb's backend (bootstrap in odd rounds, the
  # single-user backend in even ones), a random 0-0.3 s after it started: its dynamic
  # segments (/dev/shm/PostgreSQL.* with initdb's own choice, posix) and its System V
  # segment must not outlive the next run.
  backend_in() { for p in $(pgrep -x postgres); do
      case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in "$PGW/work"/*) ;; *) continue ;; esac
      { tr '\0' '\n' <"/proc/$p/cmdline"; } 2>/dev/null | grep -qx -- "$1" && { echo "$p"; return; }
    done; return 0; }
  init_left=0; init_seen=0
  for i in $(seq "$ROUNDS"); do
    phase=--single; [ $((i % 2)) -eq 1 ] && phase=--boot
    ls /dev/shm | grep '^PostgreSQL\.' | sort >"$W/shm-before" || true
    "$P" pg tpch --quiet --sf 0.01 --reps 1 --queries 6 --no-baseline --tier "$PGW/tier" --work-dir "$PGW/work" >/dev/null 2>&1 & pid=$!
    b=""; t=0
    while [ -z "$b" ] && [ "$t" -lt 3000 ] && kill -0 "$pid" 2>/dev/null; do t=$((t+1)); b=$(backend_in "$phase"); [ -n "$b" ] || sleep 0.01; done
    sleep "0.$(( RANDOM % 3 ))$(( RANDOM % 10 ))"
    kill -9 "$pid" $b 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    [ -n "$b" ] && init_seen=$((init_seen+1))
    "$P" pg tpch --quiet --sf 0.01 --reps 1 --queries 6 --no-baseline --tier "$PGW/tier" --work-dir "$PGW/work" >/dev/null 2>&1 \
      || { echo "round $i: the next run failed"; init_left=$((init_left+1)); }
    dirs=$(find "$PGW/work" "$PGW/tier" -mindepth 1 -maxdepth 1 -name 'pmolap-pg-*' | wc -l)
    segs=0; [ -n "$b" ] && segs=$(awk -v c="$b" 'NR > 1 && $5 == c' /proc/sysvipc/shm | wc -l)
    shm=$(ls /dev/shm | grep '^PostgreSQL\.' | sort | comm -13 "$W/shm-before" - | grep -c . || true)
    n=$((dirs + segs + shm))
    [ "$n" -eq 0 ] || { echo "round $i ($phase): left: $dirs directories, $segs SysV segment, $shm /dev/shm files"; init_left=$((init_left+n)); }
  done
  echo "kill -9 of pg tpch and initdb's backend: $ROUNDS tries ($init_seen with the backend seen), directories, SysV segments and /dev/shm files left after the next run $init_left"
else
  echo "kill -9 of pg tpch: skipped (no PostgreSQL server binaries)"
fi
