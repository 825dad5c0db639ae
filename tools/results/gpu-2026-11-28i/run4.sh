#!/usr/bin/env bash
# run4: the convnet's compiled training step (default mode) with neighbour fusion on and off, under the profiler
# (net_profile.py): does fusion lose on the GPU's busy time or on the host?
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 500 python3 tools/results/gpu-2026-11-28i/net_profile.py 2>&1 | grep -v "^W\|Warning\|warn" | tail -80
