#!/usr/bin/env bash
# #16 final: the runtime op / layout / statics tests and the neighbour tests on CUDA after the review mends,
# then the inference step with Inductor's layout choice against both compiled plain loops in one run (twice).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
timeout 200 python3 -m pytest -q -p no:cacheprovider packages/flexsn-runtime/tests/test_ops.py \
    packages/flexsn-runtime/tests/test_layout.py packages/flexsn-runtime/tests/test_statics.py \
    tests-integration/test_neighbour_fusion.py 2>&1 | tail -4 | tee "$OUT/tests.log"
for k in 1 2; do
    mkdir -p "$OUT/infer-$k"
    timeout 150 python3 tools/bench_net.py --out "$OUT/infer-$k" --rep 21 --what infer \
        --impls flexsn_ro,flexsn_ro_nofuse,loop_compile,loop_ro 2>&1 \
        | grep -v "^W1\|warn\|DEBUG" | tail -6 | tee "$OUT/infer-$k/bench_net.log"
done
