#!/usr/bin/env bash
# run7: the backward launch order's tie-break (per-step tensors decide between orders that as many sequences share)
# on CUDA: the copies of the compiled convnet step (net_copies.py; run6 before), its profile (net_profile.py; run4
# before), and the tests of layouts, neighbour fusion and compiled networks.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 150 python3 tools/results/gpu-2026-11-28i/net_copies.py 2>&1 | grep -v "^W\|Warning\|warn" | tail -30
timeout 120 python3 tools/results/gpu-2026-11-28i/net_profile.py flexsn_compile flexsn_compile_nofuse 2>&1 | grep '"impl"'
timeout 200 python3 -m pytest -q -p no:cacheprovider -n 8 packages/flexsn-runtime/tests/test_layout.py \
  tests-integration/test_neighbour_fusion.py tests-integration/test_compiled_networks.py 2>&1 | grep -E "^(FAILED|ERROR)|passed|failed" | tail -15
