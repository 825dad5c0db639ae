#!/usr/bin/env bash
# #14: cache hints / prefetch depth on minimal scans (cache_hints.py); LIF kernels' block settings (lif_blocks.py).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
mkdir -p "$OUT"
export FLEXSN_CACHE_DIR=$(mktemp -d)
timeout 300 python3 tools/results/gpu-2026-12-03/cache_hints.py "$OUT" 2>&1 | tee "$OUT/cache_hints.log" | tail -70
timeout 200 python3 tools/results/gpu-2026-12-03/lif_blocks.py "$OUT" 2>&1 | tee "$OUT/lif_blocks.log" | tail -40
