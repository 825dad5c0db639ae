#!/usr/bin/env bash
# #14: why the 2x2 training forward is slow per byte (write_mix.py, see its docstring).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.mem,clocks.max.mem --format=csv | tee "$OUT/gpu.txt"
timeout 400 python3 tools/results/gpu-2026-12-03/write_mix.py "$OUT" 2>&1 | tee "$OUT/write_mix.log" | tail -60
