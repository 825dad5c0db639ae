#!/usr/bin/env bash
# Device call 2: this stop's new tests on CUDA (torch.jit.trace, detach_net), with the inference_mode,
# layout and CUDA-graph tests beside them; then the packages and integration suites
# (tools/gpu_tests.sh's selection, through tools/results/gpu-2026-11-24/suite.sh).
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
timeout 240 python3 -m pytest -q -rfE -p no:cacheprovider packages/flexsn-nn/tests/test_jit_trace.py \
  packages/flexsn-nn/tests/test_detach.py packages/flexsn-nn/tests/test_inference_mode.py \
  packages/flexsn-nn/tests/test_cuda_graphs.py 2>&1 | tee "$OUT/focused.log" | tail -3
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 | tail -3
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 | tail -3
