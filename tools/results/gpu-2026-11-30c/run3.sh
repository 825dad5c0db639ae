#!/bin/bash
# run3: the rank-generic template (the op on [T, *step] and on a [T, N] view), with Inductor's fusion log
cd "$(dirname "$0")/../../.."
mkdir -p $OUT/run3
TORCH_LOGS=fusion python3 tools/results/gpu-2026-11-30c/template_spike.py $OUT/run3 > $OUT/run3/fusion.log 2>&1
cat $OUT/run3/spike.json
grep -v "^\s*$" $OUT/run3/fusion.log | grep -i "tem\|epilogue\|prologue" | cut -c1-300 | sort | uniq -c | sort -rn | head -40
