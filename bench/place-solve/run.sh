#!/usr/bin/env bash
# Times the two-tier exact Pareto front of pmolap-place on an SSB-shaped workload
# (174 structures; --copies 2 doubles it) and prints the figures with the machine.
# Usage: bench/place-solve/run.sh [--runs N] [--copies C]
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs"
cargo run --quiet --release -p pmolap-place --example solve_bench -- "$@"
