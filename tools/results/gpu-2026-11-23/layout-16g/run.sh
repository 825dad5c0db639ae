#!/usr/bin/env bash
# #16: the scan reads and writes the convolutions' channels-last memory (flexsn_runtime.layout; the ops tagged
# flexible_layout). The layout / op / statics / neighbour / CUDA-graph tests on CUDA, then the convnet step.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
timeout 200 python3 -m pytest -q -p no:cacheprovider -x packages/flexsn-runtime/tests/test_layout.py \
    packages/flexsn-runtime/tests/test_ops.py packages/flexsn-runtime/tests/test_statics.py \
    packages/flexsn-nn/tests/test_cuda_graphs.py tests-integration/test_neighbour_fusion.py 2>&1 | tail -15 | tee "$OUT/tests.log"
timeout 330 python3 tools/bench_net.py --out "$OUT" --rep 15 --kernels \
    --impls flexsn,flexsn_compile,flexsn_compile_nofuse,flexsn_ro,flexsn_ro_nofuse,loop_compile,loop_ro 2>&1 \
    | grep -v "^W1\|warn\|DEBUG" | tail -30 | tee "$OUT/bench_net.log"
