#!/usr/bin/env bash
# run4: test_cuda_graphs.py alone in one process with cold caches, the tree before the gc fixture (.ab/base = HEAD
# before it) and this tree; then the packages' suite on this tree (cold FlexSN cache, -n 8, as run3).
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
for tree in base new; do
  Q=$(ls -d "$PWD"/packages/*/src | paste -sd: -); T=packages/flexsn-nn/tests/test_cuda_graphs.py
  [ $tree = base ] && Q=$(ls -d "$PWD"/.ab/base/packages/*/src | paste -sd: -) && T=.ab/base/packages/flexsn-nn/tests/test_cuda_graphs.py
  echo "== $tree: test_cuda_graphs.py alone, cold caches"
  FLEXSN_CACHE_DIR=$(mktemp -d) TRITON_CACHE_DIR=$(mktemp -d) PYTHONPATH=$Q timeout 200 python3 -m pytest $T -q -p no:cacheprovider -x 2>&1 | grep -E "^(E  |FAILED)|passed|failed" | head -6
done
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 2>&1 | tail -3
rm -f "$OUT"/junit-*.xml
