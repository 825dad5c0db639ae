#!/usr/bin/env bash
# #14: launch plans (flexsn_runtime.launch_plan). One device call: per-call copy ratios of this tree and
# of the tree before the change (.ab = commit f06050f), alternated new / old / new / old, SpikingJelly's
# LIFNode beside (wheel in .whl); then tools/host_probe.py on both trees.
set -uo pipefail
source "$(dirname "$0")/../ab_env.sh"
REP=${REP:-61}
i=0
for v in new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 110 python3 tools/bench_per_call.py --out "$OUT/$i-$v" --peers sj_lif --rep "$REP" --T 8 32 2>&1 \
        | grep -v "^W1\|warn" | tail -9
done
for v in new old; do
    P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 60 python3 tools/host_probe.py --out "$OUT/host_probe-$v" 2>&1 | grep -A12 '"timeline_small"' | head -14
done
