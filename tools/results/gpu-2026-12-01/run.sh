#!/usr/bin/env bash
# Compiled calls guard the watched numbers (fcfc786): the CUDA-graph threshold test first, then the
# packages suite (it holds the compile tests on CUDA tensors without the interpreter).
set -uo pipefail
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT/suite"
PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) timeout 200 python3 -m pytest -q -p no:cacheprovider -rfE \
    packages/flexsn-nn/tests/test_cuda_graphs.py packages/flexsn-nn/tests/test_constants_change.py 2>&1 | tee "$OUT/focus.log" | tail -8
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
