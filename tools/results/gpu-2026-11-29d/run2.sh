#!/usr/bin/env bash
# run2: the reduce-overhead inference step's bimodality (ro_kernels.py): 5 fresh processes of this tree, each its
# wall time per call and back to back and its GPU kernels by name; then one of the plain loop under reduce-overhead.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
for i in 1 2 3 4 5; do
  timeout 100 python3 tools/results/gpu-2026-11-29d/ro_kernels.py flexsn_ro 2>&1 | grep -E '^\{|Error' | tee -a "$OUT/ro_kernels.jsonl"
done
timeout 100 python3 tools/results/gpu-2026-11-29d/ro_kernels.py loop_ro 2>&1 | grep -E '^\{|Error' | tee -a "$OUT/ro_kernels.jsonl"
