#!/usr/bin/env bash
# #13 / #14: PLIF per call after the launch plans, on a fresh machine (plif-13h ran on a host still
# busy after the test suite). One device call: tools/bench_static.py --parts plif (per call, SpikingJelly's
# ParametricLIFNode and FlexSN static_inputs beside; wheel in .whl) on this tree and on the tree before
# (.ab = f06050f), new / old / new / old; then tools/host_probe.py on both trees (launches stamped only).
set -uo pipefail
source "$(dirname "$0")/../ab_env.sh"
i=0
for v in new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 120 python3 tools/bench_static.py --out "$OUT/$i-$v" --parts plif --warmup 20 --rep 61 --no-compile 2>&1 \
        | grep -v "^W1\|warn" | tail -14
done
for v in new old; do P=$NEW; [ $v = old ] && P=$OLD; PYTHONPATH=$P timeout 45 python3 tools/host_probe.py --out "$OUT/host_probe-$v" 2>&1 | grep -A9 '"timeline_small"'; done
