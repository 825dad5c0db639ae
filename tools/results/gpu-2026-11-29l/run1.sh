#!/usr/bin/env bash
# run1 (two H200s): how well the convnet scales under DDP with the plain Python loop's neurons against FlexSN's,
# eager and under reduce-overhead, with a profile of 5 steps on rank 0 (tools/scale_ddp.py --profile: compute,
# NCCL-only and idle GPU time per step).
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
for neuron in torch triton; do
  for mode in none reduce-overhead; do
    for n in 1 2; do
      timeout 140 torchrun --nproc_per_node=$n tools/scale_ddp.py --neuron $neuron --compile $mode --profile 5 \
        --out "$OUT/scale" 2>&1 | grep -E '^\{|Error|error' | grep -v Warning | cut -c1-400 | head -6
    done
  done
done
