#!/usr/bin/env bash
# One device call (#13 cold start): cold_probe.py's three modes, each in a fresh process with empty caches.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
here=tools/results/gpu-2026-11-24/cold-13n
for mode in profile seq par seq par; do
    c=$(mktemp -d)
    FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$c/t timeout 200 python3 $here/cold_probe.py $mode 2>&1 | tail -2 | tee -a "$OUT/cold.jsonl"
    rm -rf "$c"
done
