#!/usr/bin/env bash
# Device call 2 (#14): LIF training at T = 8 looked slower per call in run1 (new 0.197/0.226, old 0.268/0.289):
# tools/host_probe.py new/old/new/old (host microseconds of a small training step and where they go), then
# bench_per_call at T = 8 new/old three times.
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
    echo "== host_probe $i $v"
    PYTHONPATH=$P timeout 90 python3 tools/host_probe.py --out "$OUT/host_probe-$i-$v" 2>&1 | python3 -c "
import json,sys; d=json.load(open('$OUT/host_probe-$i-$v/host_probe.json'))
print({k: d[k] for k in ('train','infer','train_no_launch','launch_direct','direct_path','timeline_small','timeline_small_infer','breakdown_small')})"
done
i=0
for v in new old new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    echo "== per_call $i $v"
    PYTHONPATH=$P timeout 70 python3 tools/bench_per_call.py --out "$OUT/per_call-$i-$v" --peers --rep 101 --warmup 20 --T 8 2>&1 \
        | grep -v "^W1\|warn" | grep "lif inference\|2x2 training\|lif training"
done
