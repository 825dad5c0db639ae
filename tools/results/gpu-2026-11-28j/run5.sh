#!/usr/bin/env bash
# run5: the convnet step with every compiled peer after this stop's changes (neighbour fusion on by default):
# FlexSN eager, compiled (default mode, now fused), reduce-overhead; the plain loop compiled and reduce-overhead.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 540 python3 tools/bench_net.py --impls flexsn,flexsn_compile,flexsn_ro,loop_compile,loop_ro --what train,infer \
  --out "$OUT" 2>&1 | grep -E '^\{|^\|' | cut -c1-260
