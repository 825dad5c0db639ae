#!/usr/bin/env bash
# run6: which tensors the compiled convnet step copies to the launch's memory order (net_copies.py), fusion off and on.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 280 python3 tools/results/gpu-2026-11-28i/net_copies.py 2>&1 | grep -v "^W\|Warning\|warn" | tail -60
