#!/usr/bin/env bash
# #13: training kernels' GPU time with the per-program guard and prologue after the first step's
# loads (new) against .ab (HEAD before it, 63488ad), alternated three times; then the issue's own
# benchmark (../shared/bench/bench_plif.py, copied to .sharedbench) on the new tree.
set -uo pipefail
source "$(dirname "$0")/../ab_env.sh"
d=tools/results/gpu-2026-11-24/prologue-13o
for i in 1 2 3; do
    for side in new old; do
        pp=$NEW; [ $side = old ] && pp=$OLD
        echo "== $side run $i"
        PYTHONPATH=$pp timeout 100 python3 $d/kernel_times.py "$OUT/$side-$i.json" 8 32 2>&1 | grep -v Warn | sed 's/, "Memcpy.*//' | cut -c1-330
    done
done
