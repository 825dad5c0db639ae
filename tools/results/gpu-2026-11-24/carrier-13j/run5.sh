#!/usr/bin/env bash
# #13 carrier, fifth call: bf16 sequences. tools/static_sweep.py --dtype bfloat16 (back to back, launch
# configuration grid) with the carrier (default) and with FLEXSN_CARRIER=0 on this tree; then half_b2b.py
# with and without the carrier.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
for c in 1 0; do
    FLEXSN_CARRIER=$c timeout 150 python3 tools/static_sweep.py --out "$OUT/sweep-bf16-carrier$c" --dtype bfloat16 --T 32 2>&1 \
        | grep -v "^W1\|warn" | tail -9
done
for c in 1 0 1 0; do
    FLEXSN_CARRIER=$c timeout 100 python3 tools/results/gpu-2026-11-24/carrier-13j/half_b2b.py carrier$c 2>&1 | grep ratio
done
