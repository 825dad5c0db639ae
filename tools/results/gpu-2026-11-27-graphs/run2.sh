#!/usr/bin/env bash
# Device call: the capture-warning tests with the CUDA-graph tests on CUDA, then the packages suite.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
timeout 240 python3 -m pytest -q -rfE -p no:cacheprovider packages/flexsn-nn/tests/test_cuda_graphs.py \
  packages/flexsn-nn/tests/test_graph_capture.py packages/flexsn-nn/tests/test_module.py 2>&1 \
  | tee "$OUT/focused.log" | tail -3
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 | tail -3
