#!/bin/bash
# run10: the template offered to Inductor's autotuning in four launches (BLOCK_NCL, num_warps); its tests, and the
# convnet's inference step without and with --template, twice each, alternated
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run10
timeout 150 python3 -m pytest tests-integration/test_template_lowering.py -q -rfE -p no:cacheprovider -p no:logging --tb=short > $OUT/run10/tests.log 2>&1
grep -v "^DEBUG" $OUT/run10/tests.log | grep -B2 -A30 "^____" | head -60
tail -1 $OUT/run10/tests.log
for i in 1 2; do for t in "" "--template"; do
  timeout 80 python3 tools/bench_net.py --what infer --impls flexsn_compile,flexsn_ro,loop_ro --rep 21 $t --out $OUT/run10/net$i$t 2>&1 | grep "^| infer"
done; done
