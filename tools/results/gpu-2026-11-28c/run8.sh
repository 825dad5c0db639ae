#!/usr/bin/env bash
# Device call 8: the backward plans for mixed memory orders (this stop's last launch-code change) on CUDA.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1 PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
timeout 150 python3 -m pytest -q -n 8 -p no:cacheprovider packages/flexsn-runtime/tests/test_op_plans.py \
  packages/flexsn-runtime/tests/test_launch_plan.py packages/flexsn-runtime/tests/test_layout.py \
  packages/flexsn-nn/tests/test_layouts.py tests-integration/test_neighbour_fusion.py --junitxml="$OUT/junit.xml" 2>&1 | tail -3 | tee "$OUT/focused.log"
