#!/usr/bin/env bash
# #13 carrier, second call: where the learnable decay's remaining per-call cost sits. tools/static_sweep.py
# (final-state training step back to back, do_bench median, launch-configuration grid) on this tree and on
# the tree before (.ab = b5131cb); then the overhead part of tools/bench_static.py per call, new / old / new / old.
set -uo pipefail
source "$(dirname "$0")/../ab_env.sh"
for v in new old; do
    P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 200 python3 tools/static_sweep.py --out "$OUT/sweep-$v" 2>&1 | grep -v "^W1\|warn" | tail -17
done
i=0
for v in new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 90 python3 tools/bench_static.py --out "$OUT/overhead-$i-$v" --parts overhead --warmup 20 --rep 61 2>&1 \
        | grep -v "^W1\|warn" | grep overhead_train | cut -c1-160
done
