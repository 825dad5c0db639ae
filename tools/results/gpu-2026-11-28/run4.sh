#!/usr/bin/env bash
# Device call 4: the same A/B as run3.sh with less noise: tools/host_probe.py (host microseconds from the
# call to the launch) new / old / new / old, then per-call ratios new / old three times (warm-up 20, median of 101).
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
NEW=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
OLD=$(ls -d "$PWD"/.ab/packages/*/src | paste -sd: -)
i=0
for v in new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 60 python3 tools/host_probe.py --out "$OUT/host_probe-$i-$v" 2>&1 | grep -A3 '"timeline_small_infer"' | head -4
done
i=0
for v in new old new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 70 python3 tools/bench_per_call.py --out "$OUT/$i-$v" --peers --rep 101 --warmup 20 --T 8 32 2>&1 \
        | grep -v "^W1\|warn" | grep "lif inference\|2x2 training"
done
