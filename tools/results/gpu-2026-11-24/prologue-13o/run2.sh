#!/usr/bin/env bash
# #13: the backward kernels' register cap (maxnreg_probe.py), new tree, one fresh process per cap.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
d=tools/results/gpu-2026-11-24/prologue-13o
for cap in none 96 80 64; do
    timeout 100 python3 $d/maxnreg_probe.py "$OUT/maxnreg-$cap.json" $cap 8 32 2>&1 | grep -v Warn | grep -v _warn_once
done
