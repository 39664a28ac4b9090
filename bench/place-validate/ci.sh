#!/usr/bin/env bash
# The small version of bench/place-validate (issue 33, "Done when") for CI: SF 0.1, one
# cache size (half the accessed bytes, at least 8 MiB) and cold, one repetition,
# baselines on. Checks the machinery, not the accuracy: each document is complete (every
# advised placement and fixed one measured, the advised model's errors finite, the
# cgroup figures and the page model's cache recorded), every baseline kind is present in
# one of them (`never accessed` stands beside an advice that keeps every accessed byte in
# DRAM: cold, budget 0 %; behind the cache every budget moves them all), `place tables`
# reads them, and the database files are untouched by every read (content, size, mtime).
# Usage: [WORK=DIR] bench/place-validate/ci.sh   (needs a memory cgroup: root)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
WORK=${WORK:-$ROOT/target/tmp/place-ci}
mkdir -p "$WORK"
cargo build --quiet --release -p pmolap
P=$ROOT/target/release/pmolap
cd "$WORK"
# The database (generated once here), then its files' fingerprint.
$P place workload --sf 0.1 --reps 1 -o workload.json --overwrite >/dev/null
fingerprint() { find data/ssb -type f -printf '%p %s %T@\n' | sort; find data/ssb -type f -print0 | sort -z | xargs -0 sha256sum; }
before=$(fingerprint)
$P place workload --sf 0.1 --reps 1 -o workload.json --overwrite >/dev/null
mkdir -p profile-dir
$P place profile --tier file:profile-dir --name disk --quick -o profile.json --overwrite --quiet >/dev/null
ACCESSED=$(python3 "$ROOT/bench/place-validate/accessed_bytes.py" workload.json)
# Half the accessed bytes, at least the 8 MiB `cache:SIZE` takes (SF 0.1 accesses ~9.9 MB).
CACHE=$((ACCESSED / 2 > 8388608 ? ACCESSED / 2 : 8388608))
$P place validate --sf 0.1 --reps 1 --workload workload.json --profile profile.json \
  --setting "cache:$CACHE" -o validate.json --overwrite --quiet >validate.txt
$P place validate --sf 0.1 --reps 1 --workload workload.json --profile profile.json \
  --setting cold -o validate-cold.json --overwrite --quiet >validate-cold.txt
$P place tables validate.json validate-cold.json --out tables.md --overwrite >/dev/null
after=$(fingerprint)
if [ "$before" != "$after" ]; then
  echo "place-validate ci: the database files changed during reads:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
python3 - validate.json validate-cold.json <<'PY'
import json, math, sys
bad, kinds, n = [], set(), 0
want = ["all slow", "data vectors only", "dictionaries only"] + \
    [f"budget {b}%" for b in ("0", "1", "5", "10", "20", "50")] + \
    [f"target {t}%" for t in ("25", "50", "75", "90")]
for path in sys.argv[1:]:
    d = json.load(open(path))
    names = [s["name"] for s in d["scenarios"]]
    if names != want:
        bad.append(f"{path}: placements {names}, want {want}")
    for s in d["scenarios"]:
        if len(s["queries"]) != 13 or not all(math.isfinite(q["measured"]) and q["median_ms"] > 0 for q in s["queries"]):
            bad.append(f"{path}: {s['name']}: not 13 measured queries")
    kinds |= {b["kind"] for b in d.get("baselines", [])}
    for b in d.get("baselines", []):
        if not b["placements"] or len(b["result"]["queries"]) != 13:
            bad.append(f"{path}: baseline {b['kind']}: incomplete")
    n += len(d.get("baselines", []))
    a = d.get("advised")
    if not a or not all(math.isfinite(a[k]) for k in ("query_median", "query_max", "workload_median", "workload_max")):
        bad.append(f"{path}: advised errors not finite: {a}")
    st = d["config"]["setting"]
    if not (st == "cold" or (isinstance(st, dict) and st.get("kind") == "cold")):
        c = d.get("cgroup") or {}
        if not c.get("model_cache_bytes") or not c.get("limit_bytes"):
            bad.append(f"{path}: cgroup figures incomplete: {c}")
    if d.get("partial"):
        bad.append(f"{path}: partial document")
for k in ("hottest", "dictionaries", "never accessed", "os alone"):
    if k not in kinds:
        bad.append(f"baseline `{k}` missing")
if bad:
    print("place-validate ci: " + "; ".join(bad), file=sys.stderr)
    sys.exit(1)
print(f"place-validate ci: ok (2 settings, {len(want)} placements each, {n} baselines, "
      f"database files untouched)")
PY
