#!/usr/bin/env bash
# run7: fused against unfused compiled inference (default mode) back to back, GPU busy time and kernels per step
# (gpu-2026-11-28j/net_ab.py, WHAT=infer): is run6's slower fused inference host time or GPU time?
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
WHAT=infer timeout 150 python3 tools/results/gpu-2026-11-28j/net_ab.py flexsn_compile flexsn_compile_nofuse 2>&1 | grep -E '^\{' | tee "$OUT/run7.jsonl"
