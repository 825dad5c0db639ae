#!/usr/bin/env bash
# After lifting same-module helpers' globals: the capture and prewarm tests on CUDA, then both suites.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
mkdir -p "$OUT/suite"
timeout 120 python3 -m pytest -q -p no:cacheprovider -rfE packages/flexsn-runtime/tests/test_captures.py \
    packages/flexsn-runtime/tests/test_prewarm.py 2>&1 | tee "$OUT/focus.log" | tail -4
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
