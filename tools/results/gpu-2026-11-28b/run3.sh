#!/usr/bin/env bash
# Device call 3: the tests of this stop's runtime change (reused static partials) and the capture/static tests, on CUDA.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1 PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
timeout 400 python3 -m pytest -q -rfE -p no:cacheprovider -n 8 --junitxml="$OUT/junit-focused.xml" \
  packages/flexsn-runtime/tests/test_launch_plan.py packages/flexsn-runtime/tests/test_training_plan.py \
  packages/flexsn-runtime/tests/test_statics.py packages/flexsn-runtime/tests/test_ops.py \
  packages/flexsn-nn/tests/test_static_inputs.py packages/flexsn-nn/tests/test_neuron_zoo.py \
  packages/flexsn-nn/tests/test_cuda_graphs.py packages/flexsn-nn/tests/test_graph_capture.py \
  packages/flexsn-nn/tests/test_detach.py tests-integration/test_properties_static.py 2>&1 | tee "$OUT/focused.log" | tail -15
