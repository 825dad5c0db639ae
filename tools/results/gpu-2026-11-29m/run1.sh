#!/usr/bin/env bash
# run1 (one H200): this stop's kernel-launch change on CUDA: final states and checkpoint rows written contiguous
# beside channels-last sequences (flexsn_runtime.layout.kept_order). The touched test files, the neighbour-fusion
# integration tests, then every package's tests (cold FlexSN cache); last, the kernels one compiled convnet step
# launches (Inductor's keep_output_stride at its default, on).
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
export FLEXSN_CACHE_DIR=$(mktemp -d)
python3 -c "import time; t=time.perf_counter(); sum(range(100000)); print('sum(range(1e5)) us', round((time.perf_counter()-t)*1e6))"
timeout 120 python3 -m pytest -q -rfE -p no:cacheprovider -n 8 packages/flexsn-runtime/tests/test_layout.py \
    packages/flexsn-runtime/tests/test_swapped_order.py packages/flexsn-runtime/tests/test_prewarm.py \
    packages/flexsn-runtime/tests/test_launch_plan.py packages/flexsn-runtime/tests/test_op_plans.py \
    tests-integration/test_neighbour_fusion.py 2>&1 | tee "$OUT/touched_tests.log" | tail -4
OUT=$OUT/suite bash tools/gpu_suite.sh packages -n 8 2>&1 | tail -8
timeout 150 python3 tools/results/gpu-2026-11-29k/step_kernels.py flexsn_compile infer,train 2>&1 | grep -v Warning | cut -c1-300 | tee "$OUT/step_kernels.txt"
