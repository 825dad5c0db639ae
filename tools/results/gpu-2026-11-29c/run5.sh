#!/usr/bin/env bash
# run5: FlexSN under reduce-overhead, inference step, this tree and the tree before (.ab/base), with Inductor's
# perf hints on (a skipped CUDA graph says why there).
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
for tree in new base; do
  P=$(ls -d "$PWD"/packages/*/src | paste -sd: -); [ $tree = base ] && P=$(ls -d "$PWD"/.ab/base/packages/*/src | paste -sd: -)
  echo "== $tree"
  PYTHONPATH=$P TORCH_LOGS=perf_hints timeout 200 python3 tools/bench_net.py --impls flexsn_ro,flexsn_compile --what infer --rep 31 \
    --out "$OUT/$tree" 2>&1 | grep -iE '^\{|cudagraph|skipping' | cut -c1-300 | head -12
done
