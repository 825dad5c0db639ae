#!/usr/bin/env bash
# run2: the recomputing backward's BLOCK_NCL (block_probe.py) in fresh processes, fused (and unfused for two widths),
# and ATen's partial sums against bandwidth (reduce_probe.py).
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
P=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
PYTHONPATH=$P timeout 60 python3 tools/results/gpu-2026-11-29e/reduce_probe.py | tee "$OUT/reduce_probe.jsonl"
probe() { FLEXSN_CACHE_DIR=$(mktemp -d) BWD_BLOCK=$1 PYTHONPATH=$P timeout 150 python3 tools/results/gpu-2026-11-29e/block_probe.py $2 2>&1 | grep -E '^\{|Error' | tee -a "$OUT/block_probe.jsonl"; }
for b in 128 256 512 1024 128 512; do probe $b flexsn_ro; done
for b in 128 512; do probe $b flexsn_ro_nofuse; done
