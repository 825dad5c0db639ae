#!/usr/bin/env bash
# Device call 4: new (this stop's tree) against old (90c634b, .ab/old), alternated in one session:
# host_probe timelines, bench_per_call (fp32, LIF and 2x2, T = 8 and 32), bench_static's overhead part
# (LIF with constants against a per-channel threshold and PLIF, per call).
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
NEW=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
OLD=$(ls -d "$PWD"/.ab/old/packages/*/src | paste -sd: -)
python3 -c "import time,os; t=time.perf_counter(); sum(range(100000)); print('sum_range_us', round((time.perf_counter()-t)*1e6), os.getloadavg())"
for v in new old; do
    P=$NEW; [ $v = old ] && P=$OLD
    echo "== host_probe $v"
    PYTHONPATH=$P timeout 90 python3 tools/host_probe.py --out "$OUT/hp-$v" > "$OUT/hp-$v.log" 2>&1; python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print({k: d[k] for k in ('python_sum_range_1e5_us', 'timeline_small', 'timeline_small_infer') if k in d})" "$OUT/hp-$v/host_probe.json"
done
i=0
for v in new old new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    echo "== per_call $i $v"
    PYTHONPATH=$P timeout 60 python3 tools/bench_per_call.py --out "$OUT/pc-$i-$v" --impls flexsn --rep 61 --warmup 20 \
        --T 8 32 2>&1 | grep -v "^W1\|warn" | tail -4
done
i=0
for v in new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    echo "== overhead $i $v"
    PYTHONPATH=$P timeout 60 python3 tools/bench_static.py --parts overhead --rep 61 --warmup 20 --out "$OUT/ov-$i-$v" 2>&1 \
        | grep overhead_train | python3 -c "
import sys, json
for l in sys.stdin:
    r = json.loads(l); print(r['impl'], r['T'], round(r['copy_ratio'], 3), round(r['over_constants'], 3))"
done
# at most 8 files come back: one archive of the JSON files
cd "$OUT" && tar czf run4.tgz $(find . -name '*.json') && find . -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
