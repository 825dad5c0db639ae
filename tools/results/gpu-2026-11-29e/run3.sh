#!/usr/bin/env bash
# run3: ATen's sum of static partials in one reduction against two (reduce_probe2.py).
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
PYTHONPATH=$(ls -d packages/*/src | paste -sd:) timeout 200 python3 tools/results/gpu-2026-11-29e/reduce_probe2.py | tee "$OUT/reduce_probe2.jsonl"
