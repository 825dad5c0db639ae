#!/usr/bin/env bash
# run5 (run6 after host_split.py stopped resetting Dynamo between the two networks, which made both unfused): the default-mode compiled inference step's host time, fused and not, alternated in one process (B = 64), with
# the cumulative profile of the FlexSN ops' host path (tools/results/gpu-2026-11-29j/host_split.py).
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 200 python3 tools/results/gpu-2026-11-29j/host_split.py 2>&1 | grep -v "Warning\|warn" | tee "$OUT/host_split.txt" | head -90
