#!/usr/bin/env bash
# run3: does a compiled network's per-call host time before its CUDA-graph replay depend on what ran before it in
# the process? gpu-2026-11-29f/replay_probe.py (inference, reduce-overhead) over impl sequences in three processes.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
p=0
for seq in "flexsn_ro loop_ro flexsn_ro loop_ro" "loop_ro flexsn_ro loop_ro flexsn_ro" "flexsn_ro flexsn_ro flexsn_ro"; do
  p=$((p + 1))
  PROC=$p FLEXSN_CACHE_DIR=$(mktemp -d) timeout 180 python3 tools/results/gpu-2026-11-29f/replay_probe.py $seq 2>&1 | grep -E '^\{|Error' | tee -a "$OUT/replay_order.jsonl"
done
