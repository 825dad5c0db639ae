#!/usr/bin/env bash
# run1: the compiled convnet step's host time, fused / unfused FlexSN against the plain loop (net_host.py), infer and train.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
mkdir -p "$OUT/run1"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv | tee "$OUT/run1/gpu.txt"
for w in infer train; do
  WHAT=$w OUT="$OUT/run1" timeout 270 python3 tools/results/gpu-2026-11-29c/net_host.py flexsn_compile flexsn_compile_nofuse loop_compile 2>&1 | grep -E '^\{|Error|error' | cut -c1-300
done
