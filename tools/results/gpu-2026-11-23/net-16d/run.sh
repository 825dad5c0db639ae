#!/usr/bin/env bash
# #16: the neighbour tests on CUDA, then the convnet step, every implementation (tools/bench_net.py).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -):/tmp/site PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
timeout 150 python3 -m pytest -q -p no:cacheprovider packages/flexsn-hop/tests/test_neighbour_pass.py \
    tests-integration/test_neighbour_fusion.py 2>&1 | tail -4 | tee "$OUT/tests.log"
timeout 420 python3 tools/bench_net.py --out "$OUT" --kernels --rep 11 2>&1 | grep -v "^W1\|warn\|DEBUG" | tail -30 | tee "$OUT/bench_net.log"
