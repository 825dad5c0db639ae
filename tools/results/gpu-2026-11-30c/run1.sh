#!/bin/bash
# run1: the TritonTemplate spike on the GPU (torch's own Inductor; no FlexSN code)
cd "$(dirname "$0")/../../.."
mkdir -p $OUT/run1
true
python3 tools/results/gpu-2026-11-30c/template_spike.py $OUT/run1 2>&1 | tail -60 | tee $OUT/run1/spike.log
