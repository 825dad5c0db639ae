#!/bin/bash
# run5: run4 again with the failures' tracebacks kept (run4's tail showed only Inductor's debug log) and the probe's import mended
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run5
timeout 300 python3 -m pytest tests-integration/test_template_lowering.py packages/flexsn-hop/tests/test_inductor_template.py -q -rfE -p no:cacheprovider -p no:logging --tb=short > $OUT/run5/tests.log 2>&1
grep -v "^DEBUG" $OUT/run5/tests.log | grep -B2 -A25 "^____\|Error" | head -150
tail -3 $OUT/run5/tests.log
timeout 240 python3 tools/results/gpu-2026-11-30c/template_probe.py $OUT/run5 2>&1 | grep -v Warning | tail -20
