#!/usr/bin/env bash
# run4: host time of the compiled convnet inference step (default mode), fused and not, at the first batch size
# (64) and at a second one (48, symbolic), with a cProfile of the fused second-size step.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
for impl in flexsn_compile flexsn_compile_nofuse; do
  timeout 100 python3 tools/results/gpu-2026-11-29j/host_per_step.py $impl 64 64 2>&1 | grep host_us
  timeout 120 python3 tools/results/gpu-2026-11-29j/host_per_step.py $impl 64 48 2>&1 | grep -v "Warning\|warn" | head -40
done
