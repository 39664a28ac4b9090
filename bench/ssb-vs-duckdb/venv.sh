# Sourced by the run.sh of bench/ssb-vs-duckdb, bench/sql-vs-duckdb and bench/peers.
# bench_venv VENV REQUIREMENTS [SKIP_LINE]: makes the venv VENV once (with $PYTHON,
# default python3) and installs the pinned REQUIREMENTS (PyPI) into it; quick when already
# satisfied, and brings an existing venv to the pinned versions. When that fails it exits
# the script: with 0 after printing SKIP_LINE where one is given (CI's "skipped" line),
# else with 1.
bench_venv() {
    local venv="$1" req="$2" skip="${3:-}"
    if { [[ -x "$venv/bin/python" ]] || { echo "making $venv" >&2 && mkdir -p "$(dirname "$venv")" &&
        "${PYTHON:-python3}" -m venv "$venv"; }; } &&
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2; then
        return 0
    fi
    if [[ -n "$skip" ]]; then
        echo "$skip" >&2
        exit 0
    fi
    echo "error: could not install $req into $venv" >&2
    exit 1
}
