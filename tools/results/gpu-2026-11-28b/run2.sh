#!/usr/bin/env bash
# Device call 2: the learnable parameters' cost and LIF per call with autograd's device thread off and on
# (fresh process each, alternated), then the integration suite.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
S=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
summ() { python3 -c "import sys, json
for l in sys.stdin:
    try: r = json.loads(l)
    except Exception: continue
    if r.get('case') == 'overhead_train':
        print(r['autograd_threads'], r['impl'], r['T'], 'per call', round(r['ms'], 4), r['rounds_ms'], 'over', round(r['over_constants'], 3), 'b2b over', round(r['back_to_back_over_constants'], 3), 'kernels over', round(r['kernel_over_constants'], 4))
    elif 'copy_ratio' in r:
        print(r.get('autograd_threads'), r['case'], r['mode'], r['T'], 'ratio', round(r['copy_ratio'], 3))"; }
for t in off on; do
  PYTHONPATH=$S timeout 100 python3 tools/bench_static.py --out "$OUT/static-$t" --parts overhead --T 8 32 --warmup 10 --rep 31 --rounds 3 --autograd-threads $t 2>&1 | summ
done
for round in 1 2; do
  for t in on off; do
    PYTHONPATH=$S timeout 60 python3 tools/bench_per_call.py --out "$OUT/pc-$t-$round" --cases lif --impls flexsn --peers --warmup 20 --rep 61 --autograd-threads $t 2>&1 | summ
  done
done
timeout 330 bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
