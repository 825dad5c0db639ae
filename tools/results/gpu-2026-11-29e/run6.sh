#!/usr/bin/env bash
# run6: the ops write final states and checkpoint rows contiguous beside channels-last launches (layout.state_swap):
# the compiled convnet's steps, this tree against .ab/base (28bf2e7, with the two-step partial sums), alternated in
# fresh processes (step_gpu.py), then the layout tests on CUDA.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
NEW=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
BASE=$(ls -d "$PWD"/.ab/base/packages/*/src | paste -sd: -)
for round in 1 2; do
  for tree in new base; do
    Q=$NEW; [ $tree = base ] && Q=$BASE
    TREE=$tree FLEXSN_CACHE_DIR=$(mktemp -d) PYTHONPATH=$Q timeout 150 python3 tools/results/gpu-2026-11-29e/step_gpu.py flexsn_ro 2>&1 | grep -E '^\{|Error' | tee -a "$OUT/step_gpu.jsonl"
  done
done
FLEXSN_CACHE_DIR=$(mktemp -d) PYTHONPATH=$NEW timeout 200 python3 -m pytest packages/flexsn-runtime/tests/test_layout.py packages/flexsn-runtime/tests/test_swapped_order.py \
  packages/flexsn-runtime/tests/test_launch_plan.py packages/flexsn-runtime/tests/test_op_plans.py tests-integration/test_neighbour_fusion.py \
  -q -p no:cacheprovider -n 8 2>&1 | grep -E "^(E  |FAILED)|passed|failed" | tail -8
