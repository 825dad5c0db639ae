#!/bin/bash
# run12: the lowering's GPU tests with LIF on backend="hop" added
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run12
timeout 120 python3 -m pytest tests-integration/test_template_lowering.py -q -rfE -p no:cacheprovider -p no:logging --tb=short > $OUT/run12/tests.log 2>&1
grep -v "^DEBUG" $OUT/run12/tests.log | grep -B2 -A30 "^____" | head -40
tail -1 $OUT/run12/tests.log
