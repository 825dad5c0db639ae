#!/usr/bin/env bash
# run5: run4's default-mode wall time again, base first this time (run4 ran this tree first in each round, and its
# default-mode steps took 7.0-8.0 ms against 5.7-6.5 ms), three rounds of flexsn_compile.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
NEW=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
BASE=$(ls -d "$PWD"/.ab/base/packages/*/src | paste -sd: -)
for round in 1 2 3; do
  for tree in base new; do
    Q=$NEW; [ $tree = base ] && Q=$BASE
    FLEXSN_CACHE_DIR=$(mktemp -d) PYTHONPATH=$Q timeout 90 python3 tools/results/gpu-2026-11-29e/block_probe.py flexsn_compile 2>&1 | grep -E '^\{|Error' | sed "s/^{/{\"tree\": \"$tree\", /" | tee -a "$OUT/ab2.jsonl"
  done
done
