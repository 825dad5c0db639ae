#!/usr/bin/env bash
# run5 (two H200s): DDP with FlexSN neurons compiled (default, reduce-overhead) against eager, parameters after 3 steps
# (ddp_compiled_check.py); then tools/scale_ddp.py's samples/s on 1 and 2 GPUs, eager and compiled.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
for mode in default reduce-overhead; do
  timeout 200 torchrun --nproc_per_node=2 tools/results/gpu-2026-11-29k/ddp_compiled_check.py $mode 2>&1 \
    | grep -E '^\{|Error|error' | grep -v Warning | cut -c1-400 | head -8
done
for mode in none reduce-overhead; do
  for n in 1 2; do
    timeout 200 torchrun --nproc_per_node=$n tools/scale_ddp.py --compile $mode --out "$OUT/scale" 2>&1 \
      | grep -E '^\{|Error|error' | grep -v Warning | cut -c1-300 | head -6
  done
done
