#!/bin/bash
# run8: the lowering as committed (run7's logic, refactored; index slopes read without importing sympy): its tests,
# the hop package's, and the per-kernel profile of the convnet with the template alone
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run8
timeout 300 python3 -m pytest -p no:randomly tests-integration/test_template_lowering.py packages/flexsn-hop/tests \
  -q -rfE -p no:cacheprovider -p no:logging --tb=short > $OUT/run8/tests.log 2>&1
grep -v "^DEBUG" $OUT/run8/tests.log | grep -B2 -A30 "^____" | head -60
tail -2 $OUT/run8/tests.log
timeout 150 python3 tools/results/gpu-2026-11-30d/template_profile.py --impl flexsn_compile_nofuse --template --out $OUT/run8/profile 2>&1 | grep -v "^DEBUG\|Warning\|warn" | tail -6
grep -c "idx_2 = offs % 128" $OUT/run8/profile/flexsn_compile_nofuse_template_code.py.txt
rm -f $OUT/run8/profile/*_code.py.txt
