#!/usr/bin/env bash
# #16 after layout-16h: the backward launches in the order most of its sequences share (fewest copies);
# the convnet step with the network in torch.channels_last (every impl), then Inductor's own layout choice again.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
mkdir -p "$OUT/cl" "$OUT/auto"
timeout 330 python3 tools/bench_net.py --out "$OUT/cl" --rep 15 --channels-last \
    --impls flexsn,flexsn_ro,flexsn_ro_nofuse,loop_compile,loop_ro 2>&1 \
    | grep -v "^W1\|warn\|DEBUG" | tail -14 | tee "$OUT/cl/bench_net.log"
timeout 200 python3 tools/bench_net.py --out "$OUT/auto" --rep 15 \
    --impls flexsn_ro,flexsn_ro_nofuse,loop_ro 2>&1 \
    | grep -v "^W1\|warn\|DEBUG" | tail -10 | tee "$OUT/auto/bench_net.log"
