#!/usr/bin/env bash
# After the review mend (one compile-time tell, helpers each once): the focused tests, then both suites.
set -uo pipefail
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT/suite"
PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) timeout 200 python3 -m pytest -q -p no:cacheprovider -rfE \
    packages/flexsn-nn/tests/test_cuda_graphs.py packages/flexsn-nn/tests/test_constants_change.py \
    packages/flexsn-trace/tests/test_constants.py packages/flexsn-nn/tests/test_reliability.py 2>&1 | tee "$OUT/focus.log" | tail -8
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
