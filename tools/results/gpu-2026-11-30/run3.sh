#!/usr/bin/env bash
# After the compiled-graph constants check and the deep-copy rebinding: the GPU suite on the final tree.
set -uo pipefail
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT/suite"
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
