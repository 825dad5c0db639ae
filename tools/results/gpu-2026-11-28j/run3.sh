#!/usr/bin/env bash
# run3: this tree only, training and inference steps, neighbour fusion on and off, three fresh processes:
# is the fused compiled step (default mode) at least as fast as the unfused one now?
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
for round in 1 2 3; do
  WHAT=both timeout 170 python3 tools/results/gpu-2026-11-28j/net_ab.py flexsn_compile flexsn_compile_nofuse 2>&1 | grep '"impl"'
done
