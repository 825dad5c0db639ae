#!/usr/bin/env bash
# Device call 5: the mended device-name test and the op-plan tests on CUDA, then the integration suite.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1 PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
timeout 60 python3 -m pytest -q -p no:cacheprovider packages/flexsn-nn/tests/test_static_inputs.py -k "another_device or names_the_static" \
  packages/flexsn-runtime/tests/test_op_plans.py packages/flexsn-runtime/tests/test_statics.py 2>&1 | tail -3 | tee "$OUT/focused.log"
timeout 480 bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
