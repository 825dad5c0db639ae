#!/usr/bin/env bash
# #16 after the host-time cuts: the convnet step, every implementation but SpikingJelly (measured in net-16d).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
timeout 560 python3 tools/bench_net.py --out "$OUT" --rep 15 \
    --impls flexsn,flexsn_compile,flexsn_compile_nofuse,flexsn_ro,flexsn_ro_nofuse,loop_compile,loop_ro 2>&1 \
    | grep -v "^W1\|warn\|DEBUG" | tail -30 | tee "$OUT/bench_net.log"
