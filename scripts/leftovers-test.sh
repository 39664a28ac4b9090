#!/usr/bin/env bash
# Checks the leftover check itself (scripts/leftovers.sh, run at the end of .ci/run): a
# directory planted in /tmp and a file planted in /dev/shm after the snapshot make it fail
# naming them; once they are removed it no longer names them. Leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/.."
snap="$(mktemp -d /tmp/pmolap-leftovers-test.XXXXXX)"
planted=()
trap 'rm -rf "$snap" "${planted[@]}"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
bash scripts/leftovers.sh snapshot "$snap/before"
planted+=("$(mktemp -d /tmp/pmolap-planted.XXXXXX)")
if [[ -d /dev/shm ]]; then
    planted+=("$(mktemp /dev/shm/pmolap-planted.XXXXXX)")
fi
# The test's own snapshot folder was made before the snapshot: not new.
if out="$(bash scripts/leftovers.sh check "$snap/before" 2>&1)"; then
    echo "leftovers-test: FAILED: the check passed with ${planted[*]} planted" >&2
    exit 1
fi
for p in "${planted[@]}"; do
    grep -q -F "  $p" <<<"$out" || { echo "leftovers-test: FAILED: $p not named in: $out" >&2; exit 1; }
done
rm -rf "${planted[@]}"
out="$(bash scripts/leftovers.sh check "$snap/before" 2>&1 || true)"
for p in "${planted[@]}"; do
    if grep -q -F "  $p" <<<"$out"; then
        echo "leftovers-test: FAILED: $p named after it was removed" >&2
        exit 1
    fi
done
echo "leftovers-test: ok (a planted leftover fails the check, by name)"
