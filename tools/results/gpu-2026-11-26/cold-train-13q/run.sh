#!/usr/bin/env bash
# One device call (#13 cold start, after the training shape check): cold_train.py per neuron, each in a
# fresh process with empty FlexSN and Triton caches; bytecode as shipped, then written once and reused.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
here=tools/results/gpu-2026-11-26/cold-train-13q
pyc=$(mktemp -d)
one() {  # neuron, bytecode label, extra env
    c=$(mktemp -d)
    env FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$c/t $3 timeout 200 python3 $here/cold_train.py $1 $2 2>&1 | tail -1 | tee -a "$OUT/cold_train.jsonl"
    rm -rf "$c"
}
for n in plif lif plif lif; do one $n as-shipped ""; done
one plif warm-up PYTHONPYCACHEPREFIX=$pyc
for n in plif lif plif lif; do one $n written-once PYTHONPYCACHEPREFIX=$pyc; done
