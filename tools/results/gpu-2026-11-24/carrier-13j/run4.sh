#!/usr/bin/env bash
# #13 carrier, fourth call: half_b2b.py (fp32 and bf16, back to back) on this tree and the tree before
# (.ab = b5131cb), new / old / new / old.
set -uo pipefail
source "$(dirname "$0")/../ab_env.sh"
for v in new old new old; do
    P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 100 python3 tools/results/gpu-2026-11-24/carrier-13j/half_b2b.py $v 2>&1 | grep ratio
done
