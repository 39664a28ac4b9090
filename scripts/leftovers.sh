#!/usr/bin/env bash
# The leftover check of .ci/run (issue 34 item 8): what is new in /tmp, /dev/shm or the
# memory cgroups since a snapshot.
#
#   scripts/leftovers.sh snapshot FILE          record what is there now
#   scripts/leftovers.sh check FILE [NAME...]   exit 1 listing every entry new since FILE
#                                               (NAMEs: entries that may be new)
#
# LEFTOVER_DIRS (default "/tmp /dev/shm") and CGROUP_ROOT (default /sys/fs/cgroup) name
# where to look.
set -euo pipefail

list() {
    local d
    for d in ${LEFTOVER_DIRS:-/tmp /dev/shm}; do
        [[ -d "$d" ]] && ls -1A "$d" | sed "s|^|$d/|"
    done
    find "${CGROUP_ROOT:-/sys/fs/cgroup}" -maxdepth 2 -type d -name '*pmolap*' 2>/dev/null || true
}

case "${1:-}" in
snapshot)
    [[ $# -eq 2 ]] || { echo "usage: $0 snapshot FILE" >&2; exit 2; }
    list | sort >"$2"
    ;;
check)
    [[ $# -ge 2 ]] || { echo "usage: $0 check FILE [NAME...]" >&2; exit 2; }
    before="$2"
    shift 2
    new="$(list | sort | comm -13 "$before" -)"
    for allowed in "$@"; do
        new="$(grep -v -x -F -e "$allowed" <<<"$new" || true)"
    done
    if [[ -n "$new" ]]; then
        echo "error: the run left these behind (new since it started):" >&2
        sed 's/^/  /' <<<"$new" >&2
        exit 1
    fi
    ;;
*)
    echo "usage: $0 snapshot FILE | check FILE [NAME...]" >&2
    exit 2
    ;;
esac
