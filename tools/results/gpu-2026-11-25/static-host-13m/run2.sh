#!/usr/bin/env bash
# #13 after the host cut and the review mends (bf21f74, bfc5534, and the carrier split): the T = 8 / T = 32
# A/B of probe.py against .ab (f0bee46, the tree before this session), then tools/bench_static.py's
# overhead part (per call, median of 61) on the new tree.
set -uo pipefail
source "$(dirname "$0")/../../gpu-2026-11-24/ab_env.sh"
d=tools/results/gpu-2026-11-25/static-host-13m
for i in 1 2; do
    for side in new old; do
        pp=$NEW; [ $side = old ] && pp=$OLD
        echo "== $side T=8 run $i"
        PYTHONPATH=$pp timeout 150 python3 $d/probe.py "$OUT/$side-T8-$i.json" 8 6 2>&1 | grep "per call median"
    done
done
for side in new old; do
    pp=$NEW; [ $side = old ] && pp=$OLD
    echo "== $side T=32"
    PYTHONPATH=$pp timeout 150 python3 $d/probe.py "$OUT/$side-T32.json" 32 3 2>&1 | grep "per call median"
done
echo "== bench_static overhead (new)"
PYTHONPATH=$NEW timeout 150 python3 tools/bench_static.py --out "$OUT/overhead" --parts overhead --warmup 20 --rep 61 2>&1 \
    | grep -v "^W1\|warn" | grep overhead_train | cut -c1-170
