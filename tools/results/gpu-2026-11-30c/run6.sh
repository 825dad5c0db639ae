#!/bin/bash
# run6: the lowering's tests after their mends (opaque calls told from comments, kernels counted by
# async_compile.triton, the CPU test compiled on CUDA here), then the probe keeping both neurons' template code
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run6
timeout 300 python3 -m pytest tests-integration/test_template_lowering.py packages/flexsn-hop/tests/test_inductor_template.py -q -rfE -p no:cacheprovider -p no:logging --tb=short > $OUT/run6/tests.log 2>&1
grep -v "^DEBUG" $OUT/run6/tests.log | grep -B2 -A25 "^____" | head -120
tail -3 $OUT/run6/tests.log
timeout 240 python3 tools/results/gpu-2026-11-30c/template_probe.py $OUT/run6 2>&1 | grep -v Warning | tail -20
