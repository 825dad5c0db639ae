#!/usr/bin/env bash
# run1: per-call reduce-overhead inference of the convnet, split at the CUDA graph's replay (replay_probe.py):
# FlexSN fused against the plain loop, four fresh processes, the order alternated; then training in one more.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
for p in 1 2 3 4; do
  impls="flexsn_ro loop_ro"; [ $((p % 2)) = 0 ] && impls="loop_ro flexsn_ro"
  PROC=$p FLEXSN_CACHE_DIR=$(mktemp -d) timeout 150 python3 tools/results/gpu-2026-11-29f/replay_probe.py $impls 2>&1 | grep -E '^\{|Error' | tee -a "$OUT/replay_probe.jsonl"
done
PROC=5 WHATS=train FLEXSN_CACHE_DIR=$(mktemp -d) timeout 200 python3 tools/results/gpu-2026-11-29f/replay_probe.py flexsn_ro loop_ro 2>&1 | grep -E '^\{|Error' | tee -a "$OUT/replay_probe.jsonl"
