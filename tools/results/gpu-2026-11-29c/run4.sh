#!/usr/bin/env bash
# run4: the convnet step (tools/bench_net.py, T = 8, B = 64) after the op registration change (f6f79de): FlexSN compiled
# (fused, default mode) and under reduce-overhead against the plain loop compiled / under reduce-overhead, training and
# inference, one process, 31 timed steps each.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 500 python3 tools/bench_net.py --impls flexsn_compile,flexsn_ro,loop_compile,loop_ro \
  --what train,infer --rep 31 --out "$OUT" 2>&1 | grep -E '^\{|^\|' | cut -c1-220
