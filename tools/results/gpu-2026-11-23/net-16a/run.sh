#!/usr/bin/env bash
# #16 first GPU run: the neighbour-pass tests on CUDA, then the convnet step (tools/bench_net.py).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
timeout 200 python3 -m pytest -q -x -p no:cacheprovider packages/flexsn-hop/tests/test_neighbour_pass.py \
    tests-integration/test_neighbour_fusion.py 2>&1 | tail -15 | tee "$OUT/tests.log"
timeout 370 python3 tools/bench_net.py --out "$OUT" --kernels --rep 11 \
    --impls flexsn_compile,flexsn_compile_nofuse,loop_compile,flexsn 2>&1 | grep -v "^W1\|warn" | tail -40 | tee "$OUT/bench_net.log"
