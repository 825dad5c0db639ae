#!/usr/bin/env bash
# run5: is the slow reduce-overhead inference step (1.25 ms in run4, 0.95-1.05 in run2) what ran before it in the
# process? ro_kernels.py with nothing before, after flexsn_ro training, and after bench_net's earlier rows.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
for pre in "" "flexsn_ro:train" "flexsn_compile:train,flexsn_compile:infer,flexsn_ro:train" "" "flexsn_ro:train"; do
  PRE=$pre timeout 150 python3 tools/results/gpu-2026-11-29d/ro_kernels.py flexsn_ro 2>&1 | grep -E '^\{|Error' | tee -a "$OUT/ro_kernels_pre.jsonl" | cut -c1-200
done
