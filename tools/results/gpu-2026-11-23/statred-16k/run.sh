#!/usr/bin/env bash
# #16 / #13: the backward kernel sums a static input's gradient over a program's neurons where they
# share its elements (RED modes). The convnet step channels-last (where it mattered) and as written,
# then the learnable-parameter benchmark. The GPU test suite runs in a call of its own (run_gpu.sh tests).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
mkdir -p "$OUT/cl" "$OUT/auto" "$OUT/static"
timeout 250 python3 tools/bench_net.py --out "$OUT/cl" --rep 15 --channels-last --what train \
    --impls flexsn,flexsn_ro,flexsn_ro_nofuse,loop_ro 2>&1 \
    | grep -v "^W1\|warn\|DEBUG" | tail -10 | tee "$OUT/cl/bench_net.log"
timeout 150 python3 tools/bench_net.py --out "$OUT/auto" --rep 15 --what train \
    --impls flexsn_ro,flexsn_ro_nofuse,loop_ro 2>&1 \
    | grep -v "^W1\|warn\|DEBUG" | tail -8 | tee "$OUT/auto/bench_net.log"
timeout 150 python3 tools/bench_static.py --out "$OUT/static" --parts plif 2>&1 \
    | grep -v "^W1\|warn\|DEBUG" | tail -20 | tee "$OUT/static/bench_static.log"
