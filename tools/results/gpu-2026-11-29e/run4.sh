#!/usr/bin/env bash
# run4: the compiled convnet's training step, this tree (two-step partial sums, statics.split_sums) against .ab/base
# (99dcbdc), alternated in fresh processes: GPU µs per step, the backward scans' and ATen reductions' µs, per-call
# wall ms (block_probe.py with no BWD_BLOCK: the kernels' own width). Then the statics' tests on CUDA.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
NEW=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
BASE=$(ls -d "$PWD"/.ab/base/packages/*/src | paste -sd: -)
for round in 1 2; do
  for tree in new base; do
    Q=$NEW; [ $tree = base ] && Q=$BASE
    echo "== $tree"
    FLEXSN_CACHE_DIR=$(mktemp -d) PYTHONPATH=$Q timeout 150 python3 tools/results/gpu-2026-11-29e/block_probe.py flexsn_ro flexsn_compile 2>&1 | grep -E '^\{|Error' | sed "s/^{/{\"tree\": \"$tree\", /" | tee -a "$OUT/ab.jsonl"
  done
done
FLEXSN_CACHE_DIR=$(mktemp -d) PYTHONPATH=$NEW timeout 200 python3 -m pytest packages/flexsn-runtime/tests/test_statics.py packages/flexsn-runtime/tests/test_training_plan.py \
  -q -p no:cacheprovider -n 8 2>&1 | grep -E "^(E  |FAILED)|passed|failed" | tail -8
