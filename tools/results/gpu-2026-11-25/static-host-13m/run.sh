#!/usr/bin/env bash
# #13: a static input's host cost per call at T = 8, new tree against .ab (HEAD before the change,
# f0bee46), alternated: probe.py twice each (each neuron alternated in 6 rounds inside), then the
# same at T = 32 once each (the kernels' time dominates; no regression expected).
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
