#!/usr/bin/env bash
# run1 (thirty-fifth stop): does the registry fix (fed324d) hold on the GPU, and does af9d393's per-call marking
# pass test_cuda_graphs.py on top of it? _alt/packages (untracked, not committed) is the head with 5ed5252 reverted.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
cold() { FLEXSN_CACHE_DIR=$(mktemp -d) TRITON_CACHE_DIR=$(mktemp -d) "$@"; }
graphs() {  # $1: a folder holding packages/
  PYTHONPATH=$(ls -d "$1"/packages/*/src | paste -sd: -) cold timeout 200 python3 -m pytest \
    "$1"/packages/flexsn-nn/tests/test_cuda_graphs.py -q -p no:cacheprovider 2>&1 | grep -E "^(E  |FAILED)|passed|failed" | tail -6
}
echo "== head: test_cuda_graphs.py alone, cold caches"; graphs "$PWD"
echo "== head + per-call marking: test_cuda_graphs.py alone, cold caches"; graphs "$PWD/_alt"
echo "== head + per-call marking: its own tests"
PYTHONPATH=$(ls -d "$PWD"/_alt/packages/*/src | paste -sd: -) timeout 100 python3 -m pytest -q -p no:cacheprovider -n 4 \
  _alt/packages/flexsn-trace/tests/test_reach.py _alt/packages/flexsn-nn/tests/test_outputs_without_gradient.py 2>&1 | tail -2
export FLEXSN_CACHE_DIR=$(mktemp -d)
echo "== head: full suite"
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 2>&1 | tail -4
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 2>&1 | tail -4
rm -f "$OUT"/junit-*.xml
