#!/bin/bash
# run5: the producer of open layout fixed in the order it reads (run4: a copy Inductor did not fuse), the views
# read through (a view's get_layout is its buffer's); tests, profile, convnet inference under reduce-overhead

cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run5
timeout 240 python3 -m pytest -p no:randomly tests-integration/test_template_lowering.py packages/flexsn-hop/tests/test_template_lowering.py \
  packages/flexsn-hop/tests/test_inductor_template.py -q -rfE -p no:cacheprovider -p no:logging --tb=short > $OUT/run5/tests.log 2>&1
grep -v "^DEBUG" $OUT/run5/tests.log | grep -B2 -A30 "^____" | head -60
tail -2 $OUT/run5/tests.log
for v in "--impl flexsn_compile_nofuse --template" "--impl flexsn_compile --template"; do
  timeout 150 python3 tools/results/gpu-2026-11-30d/template_profile.py $v --out $OUT/run5/profile 2>&1 | grep -v "^DEBUG\|Warning\|warn" | tail -8
done
rm -f $OUT/run5/profile/flexsn_compile_template_code.py.txt
timeout 200 python3 tools/bench_net.py --what infer --template --impls flexsn_ro_nofuse,flexsn_ro,loop_ro --out $OUT/run5/net_template 2>&1 | tail -5
