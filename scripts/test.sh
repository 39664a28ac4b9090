#!/usr/bin/env bash
# The project's test command (README): installs what the tests need (scripts/setup.sh),
# then formatting, the structure checks (crate layers and import circles,
# docs/architecture.md), lints, all tests, and a smoke run of the README's main commands,
# CI-sized.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo fmt --all -- --check
bash scripts/check-layers.sh
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
cargo run --release --locked -q -- topology >/dev/null
cargo run --release --locked -q -- membench --config workloads/quick.yaml --quiet --duration 0.05 --reps 1 --json target/ci-quick.json
cargo run --release --locked -q -- plot target/ci-quick.json -o target/ci-plots >/dev/null
cargo run --release --locked -q -- report target/ci-quick.json -o target/ci-report --overwrite >/dev/null
cargo run --release --locked -q -- ssb tiers --sf 0.1 --reps 1 --quiet --json target/ci-tiers.json
# The README's main command, CI-sized (SF 0.01 is generated into data/ssb/ once).
rm -rf target/ci-demo
cargo run --release --locked -q -- demo --sf 0.01 --quiet --out target/ci-demo
