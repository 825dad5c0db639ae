#!/bin/bash
# run11: the template on bfloat16 / float16 sequences against eager and the opaque op (half_probe.py)
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run11
timeout 150 python3 tools/results/gpu-2026-11-30c/half_probe.py $OUT/run11 2>&1 | grep -v "Warning\|warn(" | tail -8
