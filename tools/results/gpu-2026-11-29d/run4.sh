#!/usr/bin/env bash
# run4: the convnet step (tools/bench_net.py, T = 8, B = 64) after the second memory order (5f5b8b8): FlexSN compiled
# (fused, default mode) and under reduce-overhead against the plain loop compiled / under reduce-overhead, training and
# inference, one process, 31 timed steps each (= gpu-2026-11-29c/run4.sh).
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 560 python3 tools/bench_net.py --impls flexsn_compile,flexsn_ro,loop_compile,loop_ro \
  --what train,infer --rep 31 --out "$OUT" 2>&1 | grep -E '^\{|^\|' | cut -c1-220
