#!/usr/bin/env bash
# run1: the split tools/bench.py on CUDA (a short subset); this stop's moved and new test files on CUDA; then the
# kernels of a compiled convnet step with Inductor's keep_output_stride on (its default) and off.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
python3 -c "import time; t=time.perf_counter(); sum(range(100000)); print('sum(range(1e5)) us', round((time.perf_counter()-t)*1e6))"
timeout 170 python3 tools/bench.py --out "$OUT/bench" --cases lif-inference lif-training --dtypes fp32 --T 8 32 \
    --impls triton clone --no-startup --warmup 5 --rep 25 --budget-s 140 --deadline-s 160 2>&1 | tail -14
timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider -x packages/flexsn-nn/tests/test_reliability.py \
    packages/flexsn-nn/tests/test_reliability_networks.py packages/flexsn-nn/tests/test_constants_change_modules.py \
    packages/flexsn-trace/tests/test_constants_paths.py packages/flexsn-nn/tests/test_explain.py \
    packages/flexsn-codegen/tests/test_lowering_ops.py 2>&1 | tee "$OUT/moved_tests.log" | tail -3
for k in 1 0; do
  TORCHINDUCTOR_KEEP_OUTPUT_STRIDE=$k timeout 150 python3 tools/results/gpu-2026-11-29k/step_kernels.py flexsn_compile infer,train 2>&1 \
    | grep -v Warning | cut -c1-300
done
