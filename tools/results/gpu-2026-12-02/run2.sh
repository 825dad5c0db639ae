#!/usr/bin/env bash
# Both GPU suites on the tree of run.sh (the launch path waits for a compile made ahead).
set -uo pipefail
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT/suite"
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
