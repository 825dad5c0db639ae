#!/usr/bin/env bash
# One device call after the ZERO_INIT kernels (#14): LIF back to back and per call (fp32), then the GPU suite.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
timeout 100 python3 tools/bench.py --out "$OUT/bench" --impls triton clone --T 8 32 --dtypes fp32 \
    --cases lif-inference lif-training --no-startup --budget-s 70 --deadline-s 90 2>&1 | grep -A 8 "^COMPACT"
timeout 60 python3 tools/bench_per_call.py --out "$OUT/per_call" --rep 61 --warmup 10 --T 8 32 --peers 2>&1 | tail -8
OUT=$OUT bash tools/results/gpu-2026-11-23/run_gpu.sh tests -n 4 -q 2>&1 | tail -3
