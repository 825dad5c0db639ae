#!/usr/bin/env bash
# #13 startup: the first backward's kernel compiled on a worker thread while the forward compiles.
# 1. the new tests and the runtime tests on CUDA; 2. cold first training steps alternated with
# FLEXSN_PREWARM=0 (tools/bench_static.py --parts startup); 3. one cProfile of each. The suites: run2.sh.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
mkdir -p "$OUT/startup" "$OUT/profile"
timeout 150 python3 -m pytest -q -p no:cacheprovider -rfE packages/flexsn-runtime/tests/test_prewarm.py \
    packages/flexsn-runtime/tests/test_launch_plan.py packages/flexsn-runtime/tests/test_lazy_training.py 2>&1 | tee "$OUT/focus.log" | tail -8
timeout 200 python3 tools/bench_static.py --out "$OUT/startup" --parts startup --startup-repeats 4 2>&1 | tail -3
cat "$OUT/startup/static.json" 2>/dev/null | head -40
for pw in 1 0; do
    d=$(mktemp -d)
    FLEXSN_PREWARM=$pw FLEXSN_CACHE_DIR=$d/f TRITON_CACHE_DIR=$d/t timeout 60 python3 tools/results/gpu-2026-12-02/startup_profile.py \
        "$OUT/profile/prewarm$pw.txt" 2>&1 | tail -2
done
