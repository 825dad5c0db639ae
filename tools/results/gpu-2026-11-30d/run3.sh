#!/bin/bash
# run3: the template walks a prologue's read order and writes returned final states in the graph's strides:
# the lowering's tests (GPU and the CPU-side ones compiled on CUDA), the per-kernel profile of run2 again, and the
# convnet's inference step under reduce-overhead (bench_net.py), without and with the template
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run3
timeout 240 python3 -m pytest -p no:randomly tests-integration/test_template_lowering.py packages/flexsn-hop/tests/test_template_lowering.py \
  packages/flexsn-hop/tests/test_inductor_template.py -q -rfE -p no:cacheprovider -p no:logging --tb=short > $OUT/run3/tests.log 2>&1
grep -v "^DEBUG" $OUT/run3/tests.log | grep -B2 -A30 "^____" | head -60
tail -2 $OUT/run3/tests.log
for v in "--impl flexsn_compile" "--impl flexsn_compile --template" "--impl flexsn_compile_nofuse --template"; do
  timeout 150 python3 tools/results/gpu-2026-11-30d/template_profile.py $v --out $OUT/run3/profile 2>&1 | grep -v "^DEBUG\|Warning\|warn" | tail -8
done
timeout 150 python3 tools/bench_net.py --what infer --impls flexsn_ro,loop_ro --out $OUT/run3/net_plain 2>&1 | tail -4
timeout 150 python3 tools/bench_net.py --what infer --template --impls flexsn_ro,flexsn_ro_nofuse --out $OUT/run3/net_template 2>&1 | tail -4
