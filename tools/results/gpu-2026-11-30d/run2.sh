#!/bin/bash
# run2: the convnet's inference step (T = 8, B = 64, default mode) profiled per kernel, the neighbour pass on / off,
# the template lowering on / off, one process each (template_profile.py)
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run2
for v in "--impl flexsn_compile" "--impl flexsn_compile --template" "--impl flexsn_compile_nofuse --template" "--impl flexsn_compile_nofuse"; do
  timeout 200 python3 tools/results/gpu-2026-11-30d/template_profile.py $v --out $OUT/run2 2>&1 | grep -v "^DEBUG\|Warning\|warn" | tail -16
done
