#!/usr/bin/env bash
# The GPU suites after lifting plain nn.Module tensor attributes and other modules' helper globals
# (packages, then integration; tools/results/gpu-2026-11-24/suite.sh), with the new tests first.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
timeout 120 python3 -m pytest -q -rfE -p no:cacheprovider packages/flexsn-nn/tests/test_plain_attributes.py \
    packages/flexsn-runtime/tests/test_captures.py 2>&1 | tee "$OUT/focus.log" | tail -6
OUT=$OUT/suite bash -c 'mkdir -p $OUT; bash tools/results/gpu-2026-11-24/suite.sh packages -n 8'
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
