#!/usr/bin/env bash
# run4: the convnet step under CUDA graphs gained with recomputation (3.91-3.96 ms against 4.30-4.31) but lost
# eagerly (5.96-6.03 against 5.15-5.43): host time or GPU time? tools/host_probe.py (small LIF layer, T = 8)
# with recomputation on and off, and the eager convnet step again, alternated.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
for run in on-1 off-1 on-2 off-2; do
    flag=$([ "${run%-*}" = on ] && echo 1 || echo 0)
    FLEXSN_RECOMPUTE=$flag timeout 100 python3 tools/host_probe.py --out "$OUT/hp-$run" --n 300 > "$OUT/hp-$run.log" 2>&1
    echo "$run host_probe: $(python3 -c "import json; d=json.load(open('$OUT/hp-$run/host_probe.json')); print({k: d[k] for k in ('train', 'train_no_launch', 'infer') if k in d}, d.get('timeline_small'))")"
    mkdir -p "$OUT/net-$run"
    FLEXSN_RECOMPUTE=$flag timeout 60 python3 tools/bench_net.py --impls flexsn --what train --rep 61 --warm 10 \
        --out "$OUT/net-$run" > "$OUT/net-$run.log" 2>&1
    tail -1 "$OUT/net-$run.log"
done
