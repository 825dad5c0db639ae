#!/usr/bin/env bash
# run1: the backward op's per-run static sums (402db5a) on CUDA: the tests that reach it, then an A/B of the compiled
# convnet step (default mode, fused and not) against the tree before (55f2397, copied to .ab/base), alternated.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
new=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
old=$(ls -d "$PWD"/.ab/base/packages/*/src | paste -sd: -)
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
[ -n "${SKIP_TESTS:-}" ] || PYTHONPATH=$new timeout 230 python3 -m pytest -q -p no:cacheprovider -n 8 packages/flexsn-runtime/tests/test_statics.py \
  packages/flexsn-runtime/tests/test_ops.py packages/flexsn-runtime/tests/test_layout.py packages/flexsn-nn/tests/test_cuda_graphs.py \
  packages/flexsn-nn/tests/test_static_inputs.py tests-integration/test_neighbour_fusion.py tests-integration/test_compiled_networks.py \
  2>&1 | grep -E "^(FAILED|ERROR)|passed|failed" | tail -15
for tree in ${TREES:-new old}; do
  PYTHONPATH=${!tree} timeout 120 python3 tools/results/gpu-2026-11-28j/net_ab.py flexsn_compile flexsn_compile_nofuse 2>&1 | grep '"impl"'
done
