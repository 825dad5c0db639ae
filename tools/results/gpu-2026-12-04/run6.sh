#!/usr/bin/env bash
# PLIF (#13's table) with recomputation on and off, alternated: per-call training copy ratios and a fresh
# process's first results (tools/bench_static.py --parts plif startup; the chunked backward is a longer
# kernel to compile).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
for run in on-1 off-1 on-2 off-2; do
    flag=$([ "${run%-*}" = on ] && echo 1 || echo 0)
    echo "== $run"
    FLEXSN_RECOMPUTE=$flag timeout 130 python3 tools/bench_static.py --parts plif startup --no-compile \
        --out "$OUT/static-$run" > "$OUT/static-$run.log" 2>&1
    tail -14 "$OUT/static-$run.log"
done
