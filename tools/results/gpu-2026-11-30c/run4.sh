#!/bin/bash
# run4: the lowering's GPU tests, the hop package's tests, and the timing probe (template_probe.py)
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run4
timeout 300 python3 -m pytest tests-integration/test_template_lowering.py packages/flexsn-hop/tests/test_inductor_template.py -q -rfE -p no:cacheprovider -x 2>&1 | tail -40 | tee $OUT/run4/tests.log
timeout 240 python3 tools/results/gpu-2026-11-30c/template_probe.py $OUT/run4 2>&1 | grep -v Warning | tail -20
