#!/usr/bin/env bash
# Device call 3: both GPU suites on the tree with TrainingCall and the launch-plan recipe.
set -uo pipefail
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT/suite"
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 2>&1 | tail -3
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 2>&1 | tail -3
