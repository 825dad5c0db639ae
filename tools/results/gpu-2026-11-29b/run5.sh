#!/usr/bin/env bash
# run5: the convnet's inference as a deployed network runs it (net.eval(): BatchNorm on running statistics,
# absorbed whole into each scan), compiled FlexSN (default mode, fused; reduce-overhead) against the plain loop
# compiled (default; reduce-overhead). tools/bench_net.py --what eval.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 370 python3 tools/bench_net.py --impls flexsn_compile,loop_compile,flexsn_ro,loop_ro --what eval \
  --out "$OUT" 2>&1 | grep -E '^\{|^\|' | cut -c1-260
