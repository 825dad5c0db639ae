#!/usr/bin/env bash
# #13: the carrier (flexsn_trace.carrier): PLIF's backward reads one float32 sequence instead of the
# input and the stored membrane. One device call: tools/bench_static.py --parts plif overhead (per call,
# SpikingJelly's ParametricLIFNode and FlexSN static_inputs beside; the per-channel threshold and decay
# against constants) on this tree and on the tree before (.ab = b5131cb), new / old / new / old;
# then the startup part (cold and warm first result) on this tree.
set -uo pipefail
source "$(dirname "$0")/../ab_env.sh"
i=0
for v in new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 130 python3 tools/bench_static.py --out "$OUT/$i-$v" --parts plif overhead --warmup 20 --rep 61 --no-compile 2>&1 \
        | grep -v "^W1\|warn" | tail -22
done
PYTHONPATH=$NEW timeout 100 python3 tools/bench_static.py --out "$OUT/startup-new" --parts startup 2>&1 | tail -6
