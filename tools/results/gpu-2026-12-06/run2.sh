#!/usr/bin/env bash
# Device call 2: why run1's LIF training at T = 8 in fp32 got slower per call (new 0.21-0.23, old 0.29-0.30):
# which paths steady-state calls take in each tree (diag.py), then host_probe's timelines of both.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
NEW=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
OLD=$(ls -d "$PWD"/.ab/old/packages/*/src | paste -sd: -)
for v in new old new old; do
    P=$NEW; [ $v = old ] && P=$OLD
    for dt in fp32 bf16; do
        echo "== $v $dt"; PYTHONPATH=$P timeout 60 python3 tools/results/gpu-2026-12-06/diag.py 8 $dt 2>&1 | tail -1
    done
done
