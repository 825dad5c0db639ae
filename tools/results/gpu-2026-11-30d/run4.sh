#!/bin/bash
# run4: the walk order read through a BatchNorm realized on batch statistics (run3 walked it contiguously),
# the final states as before run3 (written in the walk's order): the lowering's tests, the per-kernel profile,
# the convnet's inference step under reduce-overhead with the template, the pass on and off
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run4
timeout 240 python3 -m pytest -p no:randomly tests-integration/test_template_lowering.py packages/flexsn-hop/tests/test_template_lowering.py \
  packages/flexsn-hop/tests/test_inductor_template.py -q -rfE -p no:cacheprovider -p no:logging --tb=short > $OUT/run4/tests.log 2>&1
grep -v "^DEBUG" $OUT/run4/tests.log | grep -B2 -A30 "^____" | head -60
tail -2 $OUT/run4/tests.log
for v in "--impl flexsn_compile_nofuse --template" "--impl flexsn_compile --template"; do
  timeout 150 python3 tools/results/gpu-2026-11-30d/template_profile.py $v --out $OUT/run4/profile 2>&1 | grep -v "^DEBUG\|Warning\|warn" | tail -8
done
rm -f $OUT/run4/profile/flexsn_compile_template_code.py.txt
timeout 200 python3 tools/bench_net.py --what infer --template --impls flexsn_ro_nofuse,flexsn_ro,loop_ro --out $OUT/run4/net_template 2>&1 | tail -5
