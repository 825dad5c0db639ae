#!/usr/bin/env bash
# run8: after split_sums took one static's buffer too (565ff2d): the statics', op plans' and neighbour-fusion tests on CUDA.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
FLEXSN_CACHE_DIR=$(mktemp -d) PYTHONPATH=$(ls -d packages/*/src | paste -sd:) timeout 200 python3 -m pytest packages/flexsn-runtime/tests/test_statics.py \
  packages/flexsn-runtime/tests/test_op_plans.py tests-integration/test_neighbour_fusion.py -q -p no:cacheprovider -n 8 2>&1 | tee "$OUT/statics_cuda.log" \
  | grep -E "^(E  |FAILED)|passed|failed" | tail -5
