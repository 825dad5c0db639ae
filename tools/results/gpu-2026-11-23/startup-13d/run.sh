#!/usr/bin/env bash
# One device call: fresh-process start-up after the lazy training trace (#13).
# PLIF (tools/bench_static.py --parts startup) three times, then LIF and 2x2 (tools/bench.py's startup).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
for i in 1 2 3; do
    timeout 120 python3 tools/bench_static.py --out "$OUT/plif-$i" --parts startup 2>&1 | tail -3
    cat "$OUT/plif-$i/static.json" 2>/dev/null | head -c 600; echo
done
timeout 240 python3 tools/bench.py --out "$OUT/lif-2x2" --impls triton clone --T 8 --dtypes fp32 \
    --cases lif-inference 2x2-inference --budget-s 150 --deadline-s 220 2>&1 | tail -25
