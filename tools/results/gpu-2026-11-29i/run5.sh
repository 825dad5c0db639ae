#!/usr/bin/env bash
# run5: the head after the review's two mends (a test surrogate subclasses flexsn_trace.testing.Spike; unfollowed
# resolves an attribute's object once) on CUDA: the test files they touch, and the trust tests beside them
# (pytest directly: tools/gpu_suite.sh runs whole suites).
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -):$PWD/packages/flexsn-nn/tests FLEXSN_CACHE_DIR=$(mktemp -d)
unset TRITON_INTERPRET
timeout 240 python3 -m pytest -q -n 8 -p no:cacheprovider packages/flexsn-trace/tests \
    packages/flexsn-nn/tests/test_unfollowed_reads.py packages/flexsn-nn/tests/test_unfollowed_keys.py \
    packages/flexsn-nn/tests/test_standard_containers.py packages/flexsn-nn/tests/test_side_effects.py \
    packages/flexsn-nn/tests/test_generators.py 2>&1 | tee "$OUT/run5.log" | tail -4
