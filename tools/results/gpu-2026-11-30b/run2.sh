#!/usr/bin/env bash
# run2: LIF inference per call and back to back under seven launch configurations (block_per_call.py), one process.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
FLEXSN_CACHE_DIR=$(mktemp -d) timeout 500 python3 tools/results/gpu-2026-11-30b/block_per_call.py 2>&1 | tee "$OUT/block_per_call.log" | tail -32
