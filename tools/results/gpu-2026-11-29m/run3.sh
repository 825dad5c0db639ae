#!/usr/bin/env bash
# run3 (one H200): the revert's tree (50fa0c0) on CUDA: the touched test files (the backward order's vote, the
# prewarm guess, its compile-ahead test that needs CUDA; test_autocast's bound); then swap_probe.py: the second
# memory order's flat index against a tile transposed in registers, for stores and loads, at the convnet's shapes.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
export FLEXSN_CACHE_DIR=$(mktemp -d)
timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider -n 8 packages/flexsn-runtime/tests/test_layout.py \
    packages/flexsn-runtime/tests/test_swapped_order.py packages/flexsn-runtime/tests/test_prewarm.py \
    packages/flexsn-runtime/tests/test_launch_plan.py packages/flexsn-runtime/tests/test_op_plans.py \
    packages/flexsn-nn/tests/test_autocast.py tests-integration/test_neighbour_fusion.py 2>&1 | tee "$OUT/touched_tests.log" | tail -4
for shape in "8 64 64 32 32 1024" "8 64 128 16 16 1024" "8 64 256 8 8 1024" "8 64 64 32 32 2048" "8 64 32 32 32 1024"; do
  timeout 100 python3 tools/results/gpu-2026-11-29m/swap_probe.py $shape 2>&1 | tail -1 | tee -a "$OUT/swap_probe.jsonl"
done
