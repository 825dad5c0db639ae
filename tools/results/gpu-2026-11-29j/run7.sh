#!/usr/bin/env bash
# run7: the head (08a2789: torch.export with a dynamic T, after the neighbour pass's symbolic sizes) on CUDA, cold
# FlexSN cache: the test files this stop touched (export, neighbour pass and fusion, the dynamic-T tests).
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) FLEXSN_CACHE_DIR=$(mktemp -d)
unset TRITON_INTERPRET
timeout 420 python3 -m pytest -q -rfE -p no:cacheprovider -n 4 tests-integration/test_export.py \
    tests-integration/test_neighbour_fusion.py packages/flexsn-hop/tests/test_neighbour_pass.py \
    packages/flexsn-hop/tests/test_dynamo.py packages/flexsn-nn/tests/test_compiled_lengths.py 2>&1 \
    | tee "$OUT/touched_tests.log" | tail -4
