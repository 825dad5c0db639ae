#!/bin/bash
# run2: the spike after Inductor's FX graph cache was turned off (run1's second compile hit the first's cached graph)
cd "$(dirname "$0")/../../.."
mkdir -p $OUT/run2
python3 tools/results/gpu-2026-11-30c/template_spike.py $OUT/run2 2>&1 | tail -60 | tee $OUT/run2/spike.log
