#!/usr/bin/env bash
# run6: a small LIF layer's training call on the H200 (small_train_probe.py), NCL 8,192 (with profiles) and 262,144.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
FLEXSN_CACHE_DIR=$(mktemp -d) timeout 200 python3 tools/results/gpu-2026-11-30b/small_train_probe.py > "$OUT/small_train_probe.txt" 2>&1
NCL=262144 FLEXSN_CACHE_DIR=$(mktemp -d) timeout 100 python3 tools/results/gpu-2026-11-30b/small_train_probe.py 2>&1 | head -3 >> "$OUT/small_train_probe.txt"
