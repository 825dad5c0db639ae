#!/usr/bin/env bash
# Device call: the CUDA-graph and side-stream tests, the per-call floor with the busy-wait
# (cost-model) variants, then the packages suite (tools/results/gpu-2026-11-24/suite.sh).
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider packages/flexsn-nn/tests/test_cuda_graphs.py 2>&1 \
  | tee "$OUT/focused.log" | tail -3
timeout 200 python3 tools/per_call_floor.py --out "$OUT/floor" --rounds 3 --spin 0 5 10 20 40 2>&1 | tail -16
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 | tail -3
