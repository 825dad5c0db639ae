#!/bin/bash
# run8: the template addressed in the sequences' memory order (channels-last convolution outputs read where
# they lie), the lowering's tests and the CPU-side test compiled on CUDA, the probe timed right after each
# compile, and the convnet's inference step without and with --template, twice each, alternated
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run8
timeout 200 python3 -m pytest tests-integration/test_template_lowering.py packages/flexsn-hop/tests/test_inductor_template.py -q -rfE -p no:cacheprovider -p no:logging --tb=short > $OUT/run8/tests.log 2>&1
grep -v "^DEBUG" $OUT/run8/tests.log | grep -B2 -A30 "^____" | head -80
tail -3 $OUT/run8/tests.log
timeout 200 python3 tools/results/gpu-2026-11-30c/template_probe.py $OUT/run8 2>&1 | grep -v Warning | tail -12
for i in 1 2; do for t in "" "--template"; do
  timeout 100 python3 tools/bench_net.py --what infer --impls flexsn_compile,flexsn_ro,loop_ro --rep 21 $t --out $OUT/run8/net$i$t 2>&1 | grep "^| infer"
done; done
