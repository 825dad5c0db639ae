#!/usr/bin/env bash
# #13: what a learnable decay costs per call, after the per-program guard and the hoisted 1 / m.
# Registers of the generated kernels (ncu_plif.py without ncu), half_b2b.py twice (back to back,
# T = 32), profile_calls.py (kernel durations per call), and tools/bench_static.py's overhead part
# per call twice.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
d=tools/results/gpu-2026-11-24/overhead-13l
for n in lif plif; do timeout 60 python3 $d/ncu_plif.py $n 2>&1 | grep regs; done
for i in 1 2; do timeout 110 python3 tools/results/gpu-2026-11-24/carrier-13j/half_b2b.py after 2>&1 | grep "T=32"; done
timeout 120 python3 $d/profile_calls.py "$OUT/profile-after.json" 2>&1 | grep -v "^W1\|warn\|Profiler"
for i in 1 2; do
    timeout 100 python3 tools/bench_static.py --out "$OUT/overhead-$i" --parts overhead --warmup 20 --rep 61 2>&1 \
        | grep -v "^W1\|warn" | grep overhead_train | cut -c1-170
done
