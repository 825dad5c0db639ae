#!/usr/bin/env bash
# One device call (#13 cold start, after the training shape check): cold_train.py per neuron, each in a
# fresh process with empty FlexSN and Triton caches; cold, then with AOTAutograd imported before the clock.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
here=tools/results/gpu-2026-11-26/cold-train-13q
one() {  # neuron, mode
    c=$(mktemp -d)
    FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$c/t timeout 200 python3 $here/cold_train.py $1 $2 2>&1 | tail -1 | tee -a "$OUT/cold_train.jsonl"
    rm -rf "$c"
}
for n in plif lif plif lif; do one $n cold; one $n aot-imported; done
