#!/usr/bin/env bash
# run6: run5's eval-mode inference beside the train-mode one (no_grad, batch statistics) in one process, fused and
# unfused FlexSN compiled, FlexSN and the plain loop under reduce-overhead, the plain loop compiled; 31 timed steps.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 300 python3 tools/bench_net.py --impls flexsn_compile,flexsn_compile_nofuse,loop_compile,flexsn_ro,loop_ro \
  --what infer,eval --rep 31 --out "$OUT" 2>&1 | grep -E '^\{|^\|' | cut -c1-200
