#!/usr/bin/env bash
# run1: the packages suite on CUDA (round keeps a zero's sign; nan_to_num's dtype read), then where the
# reduce-overhead convnet step's host time before its CUDA-graph replay goes (replay_profile.py), FlexSN against
# the loop, two processes with the order swapped.
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT/suite"
OUT=$OUT/suite bash tools/gpu_suite.sh packages -n 8 --maxfail=5 2>&1 | tail -8
unset TRITON_INTERPRET
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
FLEXSN_CACHE_DIR=$(mktemp -d) timeout 150 python3 tools/results/gpu-2026-11-30b/replay_profile.py flexsn_ro loop_ro > "$OUT/profile1.txt" 2>&1
FLEXSN_CACHE_DIR=$(mktemp -d) timeout 150 python3 tools/results/gpu-2026-11-30b/replay_profile.py loop_ro flexsn_ro > "$OUT/profile2.txt" 2>&1
grep "===" "$OUT"/profile*.txt
