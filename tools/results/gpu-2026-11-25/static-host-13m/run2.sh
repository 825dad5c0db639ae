#!/usr/bin/env bash
# #13 after the host cut and the review mends (bf21f74, bfc5534, and the carrier split): run.sh's A/B
# of probe.py against .ab (f0bee46, the tree before this session), then tools/bench_static.py's
# overhead part (per call, median of 61) on the new tree.
set -uo pipefail
bash "$(dirname "$0")/run.sh"
source "$(dirname "$0")/../../gpu-2026-11-24/ab_env.sh"
echo "== bench_static overhead (new)"
PYTHONPATH=$NEW timeout 150 python3 tools/bench_static.py --out "$OUT/overhead" --parts overhead --warmup 20 --rep 61 2>&1 \
    | grep -v "^W1\|warn" | grep overhead_train | cut -c1-170
