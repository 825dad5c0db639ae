#!/usr/bin/env bash
# #13 carrier, third call: host time of a small PLIF / LIF training step (host_plif.py), new / old alternated
# three times (.ab = b5131cb): does the carrier add host work per call?
set -uo pipefail
source "$(dirname "$0")/../ab_env.sh"
for v in new old new old new old; do
    P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 60 python3 tools/results/gpu-2026-11-24/carrier-13j/host_plif.py $v 2>&1 | grep "per step"
done
