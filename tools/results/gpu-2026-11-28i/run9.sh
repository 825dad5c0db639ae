#!/usr/bin/env bash
# run9: the packages' suite on this stop's final code (the PiecewiseLeakyReLU gradient's kernels, the backward order).
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 2>&1 | grep -E "^(FAILED|ERROR)|passed|failed" | tail -20
rm -f "$OUT"/junit-*.xml
