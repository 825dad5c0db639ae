#!/usr/bin/env bash
# run6: reduce-overhead inference, three trees: this one (Library kernels), .ab/fix (the same kernels wrapped in
# torch._disable_dynamo, as custom_op wraps them), .ab/base (custom_op): ms per step and Dynamo's frame counters.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
for tree in new fix base; do
  P=$(ls -d "$PWD"/packages/*/src | paste -sd: -); [ $tree != new ] && P=$(ls -d "$PWD"/.ab/$tree/packages/*/src | paste -sd: -)
  echo "== $tree"
  PYTHONPATH=$P timeout 120 python3 tools/results/gpu-2026-11-29c/ro_probe.py 2>&1 | grep -E '^\{|^counter|Error' | cut -c1-600
done
