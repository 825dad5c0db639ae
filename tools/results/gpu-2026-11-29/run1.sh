#!/usr/bin/env bash
# Device call 1 (#14 host path): GPU packages suite on the new tree, then A/B new/old: per_call_floor and bench_per_call.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
NEW=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
OLD=$(ls -d "$PWD"/.ab/packages/*/src | paste -sd: -)
python3 -c "import time,os; t=time.perf_counter(); sum(range(100000)); print('sum_range_us', (time.perf_counter()-t)*1e6, os.getloadavg())"
i=0
for v in new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    echo "== floor $i $v"
    PYTHONPATH=$P timeout 90 python3 tools/per_call_floor.py --out "$OUT/floor-$i-$v" --rounds 3 --host-ncl 4096 2>&1 | tail -10
done
i=0
for v in new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    echo "== per_call $i $v"
    PYTHONPATH=$P timeout 70 python3 tools/bench_per_call.py --out "$OUT/per_call-$i-$v" --peers --rep 101 --warmup 20 --T 8 32 2>&1 \
        | grep -v "^W1\|warn" | grep "lif inference\|2x2 training\|lif training"
done
