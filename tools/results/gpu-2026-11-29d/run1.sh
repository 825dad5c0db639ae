#!/usr/bin/env bash
# run1: the second memory order (fit_orders + the kernels' ALT) on CUDA: its tests and the layout/launch tests, then the
# compiled convnet's training step (step_probe.py: copies, GPU kernel time, wall time), this tree and .ab/base
# (0e1fc74) alternated in fresh processes.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export FLEXSN_CACHE_DIR=$(mktemp -d)
P=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
PYTHONPATH=$P timeout 240 python3 -m pytest packages/flexsn-runtime/tests/test_swapped_order.py packages/flexsn-runtime/tests/test_layout.py \
  packages/flexsn-runtime/tests/test_scan_kernel.py packages/flexsn-runtime/tests/test_launch_plan.py packages/flexsn-runtime/tests/test_prewarm.py \
  packages/flexsn-runtime/tests/test_op_plans.py packages/flexsn-codegen/tests/test_templates.py -q -p no:cacheprovider -n 8 2>&1 | grep -E "^(E  |FAILED)|passed|failed" | tail -12
for round in 1 2; do
  for tree in new base; do
    Q=$P; [ $tree = base ] && Q=$(ls -d "$PWD"/.ab/base/packages/*/src | paste -sd: -)
    TREE=$tree PYTHONPATH=$Q timeout 200 python3 tools/results/gpu-2026-11-29d/step_probe.py flexsn_compile flexsn_ro 2>&1 | grep -E '^\{|Error' | tee -a "$OUT/step_probe.jsonl"
  done
done
