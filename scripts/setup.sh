#!/usr/bin/env bash
# Installs what the build and the tests need and is not yet on the machine (idempotent):
# a C compiler and pkg-config, Chromium (the report's browser test), python3-venv (the
# DuckDB/Hyper comparisons in bench/), PostgreSQL (`pmolap pg tpch` and its tests), and
# rustfmt/clippy; then checks the Rust toolchain against the workspace's MSRV.
# Called by scripts/test.sh (the README's test command) and .ci/run. Installing needs root
# or sudo; without either it names what is missing in one line and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
# crates/report/tests/browser.rs loads the report in headless Chromium.
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  need_apt+=(chromium)
fi
# The SQL-vs-DuckDB differential test and the peers smoke test make a Python venv.
probe=$(mktemp -d)
python3 -m venv "$probe/v" >/dev/null 2>&1 || need_apt+=(python3-venv)
rm -rf "$probe"
# `pmolap pg tpch` and its tests (crates/cli/tests/pg_*.rs) start a real PostgreSQL
# server (Debian 12: PostgreSQL 15) and load with psql.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || ! command -v psql >/dev/null 2>&1; then
  need_apt+=(postgresql)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    echo "error: the tests need these OS packages: ${need_apt[*]}; install them as root (apt-get install ${need_apt[*]}), then rerun" >&2
    exit 1
  fi
  echo "installing OS packages: ${need_apt[*]}" >&2
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# The workspace needs Rust >= MSRV (rust-version in Cargo.toml). Debian 12's packaged
# rustc is 1.63 and cannot build it, so there is no apt fallback: a rustup toolchain must
# be on the machine (README, "Before the first run").
MSRV=$(sed -nE 's/^rust-version = "([0-9.]+)"/\1/p' Cargo.toml)
if ! command -v cargo >/dev/null 2>&1; then
  echo "error: no Rust toolchain: install Rust >= $MSRV with rustup (https://rustup.rs), then rerun" >&2
  exit 1
fi
have=$(rustc --version | sed -E 's/^rustc ([0-9]+\.[0-9]+).*/\1/')
if [ "$(printf '%s\n%s\n' "$MSRV" "$have" | sort -V | head -1)" != "$MSRV" ]; then
  echo "error: rustc $have is older than the workspace's minimum $MSRV: run \`rustup update stable\` (Debian's packaged rustc cannot build pmolap)" >&2
  exit 1
fi
cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
