#!/usr/bin/env bash
# #13 / #14: PLIF per call after the launch plans. One device call: tools/bench_static.py --parts plif
# (per call, SpikingJelly's ParametricLIFNode and FlexSN static_inputs beside; wheel in .whl) on this
# tree and on the tree before (.ab = f06050f), new / old / new; then tools/host_probe.py on this tree
# (its timeline now stamps launches only).
set -uo pipefail
source "$(dirname "$0")/../ab_env.sh"
i=0
for v in new old new; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 120 python3 tools/bench_static.py --out "$OUT/$i-$v" --parts plif --warmup 20 --rep 61 --no-compile 2>&1 \
        | grep -v "^W1\|warn" | tail -14
done
PYTHONPATH=$NEW timeout 60 python3 tools/host_probe.py --out "$OUT/host_probe-new" 2>&1 | grep -A12 '"timeline_small"' | head -14
