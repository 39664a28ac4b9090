#!/usr/bin/env bash
# Fuzz smoke run (CI): builds every cargo-fuzz target of fuzz/ and runs each for
# FUZZ_SECONDS (20) seconds from its committed seeds, one after the other; fails on any
# crash, leak, out-of-memory or hang (the input is left in fuzz/artifacts/<target>/).
# Without a nightly toolchain, or when cargo-fuzz is missing and cannot be installed, it
# says so in one line and exits 0. The 10-minute record runs: docs/results.md,
# "Reliability: fuzzing".
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${FUZZ_SECONDS:-20}"

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz smoke runs skipped: no nightly toolchain (\`cargo +nightly --version\` failed; cargo-fuzz needs nightly)"
    exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    if ! cargo install cargo-fuzz --locked --quiet >/dev/null 2>&1; then
        echo "fuzz smoke runs skipped: cargo-fuzz is not installed and \`cargo install cargo-fuzz --locked\` failed"
        exit 0
    fi
fi

cd fuzz
nice -n 19 cargo +nightly fuzz build
mapfile -t targets < <(cargo +nightly fuzz list)

# New inputs go to a scratch corpus, so the committed seeds stay as they are.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The targets' scratch directories (fuzz/src/lib.rs: kept, since libFuzzer exits without
# destructors) go under it too, so the run leaves nothing in /tmp.
export TMPDIR="$work"
failed=()
# Every target, the place/report/SQL ones (place_workload, place_profile, placement,
# report_doc, sql_text) included, runs from its committed seeds in corpus/<target>/.
for t in "${targets[@]}"; do
    mkdir -p "$work/$t" "corpus/$t"
    log="$work/$t.log"
    if nice -n 19 cargo +nightly fuzz run "$t" "$work/$t" "corpus/$t" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 >"$log" 2>&1; then
        echo "fuzz $t: ok ($(grep -E '^#[0-9]+' "$log" | tail -n 1 | tr -s '\t ' ' '))"
    else
        echo "fuzz $t: FAILED; the end of its log:"
        tail -n 40 "$log"
        failed+=("$t")
    fi
done
if ((${#failed[@]})); then
    echo "fuzz smoke: ${#failed[@]} target(s) crashed: ${failed[*]} (reproduce: cargo +nightly fuzz run <target> fuzz/artifacts/<target>/<file>)"
    exit 1
fi
echo "fuzz smoke: ${#targets[@]} targets ran ${secs}s each without a crash"
