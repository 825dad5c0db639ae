#!/usr/bin/env bash
# Chunked recomputation (flexsn_trace.recompute) on the H200: its tests and the kernels it touches on CUDA,
# then the chunk-length sweep against the saved-value pair (one process per variant).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider -n 8 packages/flexsn-nn/tests/test_recompute.py \
    packages/flexsn-nn/tests/test_carrier_kernels.py packages/flexsn-nn/tests/test_explain.py \
    packages/flexsn-runtime/tests/test_ops.py packages/flexsn-runtime/tests/test_layout.py \
    packages/flexsn-runtime/tests/test_launchers.py packages/flexsn-runtime/tests/test_training_plan.py \
    packages/flexsn-nn/tests/test_cuda_graphs.py 2>&1 | tee "$OUT/focus.log" | tail -8
for v in saved K8 K4 K16; do
    timeout 120 python3 tools/results/gpu-2026-12-04/chunk_sweep.py --variant $v --out "$OUT" 2>&1 | tee "$OUT/sweep_$v.log" | tail -9
done
