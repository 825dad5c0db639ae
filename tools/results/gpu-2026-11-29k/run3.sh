#!/usr/bin/env bash
# run3: run2 again in the other order (keep_output_stride on first). run2: the convnet step (tools/bench_net.py, T = 8, B = 64) per call and back to back under reduce-overhead, FlexSN
# against the plain loop in one process, with Inductor's keep_output_stride on (its default) and off, one process each.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
python3 -c "import time; t=time.perf_counter(); sum(range(100000)); print('sum(range(1e5)) us', round((time.perf_counter()-t)*1e6))"
for k in 1 0; do
  mkdir -p "$OUT/keep$k"
  TORCHINDUCTOR_KEEP_OUTPUT_STRIDE=$k timeout 280 python3 tools/bench_net.py --what infer,train --rep 21 \
      --impls flexsn_ro,loop_ro --out "$OUT/keep$k" 2>&1 | grep -E '^\||Error|error' | cut -c1-300
done
