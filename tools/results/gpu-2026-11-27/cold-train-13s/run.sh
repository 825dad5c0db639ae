#!/usr/bin/env bash
# #13 first result in a fresh process, after the trace stopped importing torch's compiler (own recorder and
# joint split in place of make_fx / AOTAutograd): gpu-2026-11-26's cold_train.py, "cold" mode, fresh FlexSN
# and Triton caches per process; then the same with Triton's cache kept warm from the first run (FlexSN's
# cold), which shows the share of Triton's own compile and launcher builds.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
probe=tools/results/gpu-2026-11-26/cold-train-13q/cold_train.py
for n in plif lif plif lif; do
    c=$(mktemp -d)
    FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$c/t timeout 200 python3 $probe $n cold 2>&1 | tail -1 | tee -a "$OUT/cold_train.jsonl"
    rm -rf "$c"
done
warm=$(mktemp -d)
for n in plif lif plif lif; do
    c=$(mktemp -d)
    FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$warm timeout 200 python3 $probe $n cold 2>&1 | tail -1 | sed 's/"cold"/"cold-flexsn-warm-triton"/' | tee -a "$OUT/cold_train.jsonl"
    rm -rf "$c"
done
