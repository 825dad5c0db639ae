#!/bin/bash
# run10: a producer Inductor will not fuse as the template's prologue (a residual sum: more bytes read than written)
# is walked in the contiguous order it is written in; the lowering's GPU tests
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run10
timeout 100 python3 -m pytest -p no:randomly tests-integration/test_template_lowering.py -q -rfE -p no:cacheprovider \
  -p no:logging --tb=short > $OUT/run10/tests.log 2>&1
grep -v "^DEBUG" $OUT/run10/tests.log | grep -B2 -A25 "^____" | head -40
tail -1 $OUT/run10/tests.log
