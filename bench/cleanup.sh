#!/usr/bin/env bash
# Sourced by the bench scripts: what a script registers with `bench_on_exit PATH` is
# removed however the script ends — normally, on an error (set -e), or on Ctrl-C, TERM
# or HUP (turned into an exit so that the EXIT trap runs). Issue 34 item 8: the bench
# scripts leave nothing behind in /tmp, /dev/shm or the cgroups.
bench_cleanup_paths=()
bench_on_exit() { bench_cleanup_paths+=("$@"); }
bench_run_cleanup() {
    local p
    for p in "${bench_cleanup_paths[@]}"; do
        [[ -n "$p" && "$p" != / ]] && rm -rf -- "$p"
    done
    return 0
}
trap bench_run_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# bench_scratch DIR: DIR made empty for this run's scratch files and removed at exit.
bench_scratch() {
    rm -rf -- "$1"
    mkdir -p "$1"
    bench_on_exit "$1"
}
