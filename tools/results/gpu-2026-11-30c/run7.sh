#!/bin/bash
# run7: the CPU-side test compiled on CUDA (its index dtype as Inductor defines it), the lowering's tests,
# the probe with alternated rounds, and the convnet's inference step with and without --template
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run7
timeout 200 python3 -m pytest tests-integration/test_template_lowering.py packages/flexsn-hop/tests/test_inductor_template.py -q -rfE -p no:cacheprovider -p no:logging --tb=short > $OUT/run7/tests.log 2>&1
grep -v "^DEBUG" $OUT/run7/tests.log | grep -B2 -A25 "^____" | head -60
tail -3 $OUT/run7/tests.log
timeout 200 python3 tools/results/gpu-2026-11-30c/template_probe.py $OUT/run7 2>&1 | grep -v Warning | tail -12
for t in "" "--template"; do
  timeout 150 python3 tools/bench_net.py --what infer --impls flexsn_compile,flexsn_ro,loop_ro --rep 21 $t --out $OUT/run7/net$t 2>&1 | grep "^|"
done
