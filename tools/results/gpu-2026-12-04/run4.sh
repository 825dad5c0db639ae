#!/usr/bin/env bash
# The convnet step of ../shared/bench/probe_net.py (tools/bench_net.py: eager and reduce-overhead, training)
# with recomputation on and off, alternated; then the GPU suites on the final tree.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
for run in on-1 off-1 on-2 off-2; do
    flag=$([ "${run%-*}" = on ] && echo 1 || echo 0)
    mkdir -p "$OUT/net-$run"
    FLEXSN_RECOMPUTE=$flag timeout 100 python3 tools/bench_net.py --impls flexsn,flexsn_ro --what train --rep 31 \
        --out "$OUT/net-$run" > "$OUT/net-$run.log" 2>&1
    tail -4 "$OUT/net-$run.log"
done
OUT=$OUT/suite bash -c 'mkdir -p $OUT; bash tools/results/gpu-2026-11-24/suite.sh packages -n 8'
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
