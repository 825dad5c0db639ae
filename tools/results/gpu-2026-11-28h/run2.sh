#!/usr/bin/env bash
# run2: the head with af9d393's per-call marking put back (after run1 passed it alone): test_cuda_graphs.py alone
# with cold caches, then the full suite with a cold FlexSN cache, then parity with SpikingJelly 2.0.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
echo "== test_cuda_graphs.py alone, cold caches"
PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) FLEXSN_CACHE_DIR=$(mktemp -d) TRITON_CACHE_DIR=$(mktemp -d) \
  timeout 200 python3 -m pytest packages/flexsn-nn/tests/test_cuda_graphs.py -q -p no:cacheprovider 2>&1 \
  | grep -E "^(E  |FAILED)|passed|failed" | tail -6
bash tools/results/gpu-2026-11-28g/run2.sh
