#!/usr/bin/env bash
# The project's test command (README): formatting, lints, all tests, and a smoke run
# of the README's main command on a CI-sized sweep.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
cargo run --release --locked -q -- topology >/dev/null
cargo run --release --locked -q -- membench --config workloads/quick.yaml --quiet --duration 0.05 --reps 1 --json target/ci-quick.json
cargo run --release --locked -q -- plot target/ci-quick.json -o target/ci-plots >/dev/null
