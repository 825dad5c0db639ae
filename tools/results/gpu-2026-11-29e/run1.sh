#!/usr/bin/env bash
# run1: the compiled convnet's GPU time per kernel (kernel_breakdown.py), FlexSN under reduce-overhead and the plain
# loop under reduce-overhead, training and inference.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export FLEXSN_CACHE_DIR=$(mktemp -d)
P=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
PYTHONPATH=$P timeout 400 python3 tools/results/gpu-2026-11-29e/kernel_breakdown.py flexsn_ro loop_ro flexsn_compile 2>&1 | grep -E '^\{|Error|error' | tee "$OUT/kernel_breakdown.jsonl"
for impl in flexsn_ro loop_ro; do
  WHAT=infer PYTHONPATH=$P timeout 150 python3 tools/results/gpu-2026-11-29e/host_prof.py $impl > "$OUT/host_prof_$impl.txt" 2>&1
  grep "^==" "$OUT/host_prof_$impl.txt"
done
