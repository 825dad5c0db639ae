#!/usr/bin/env bash
# This stop's GPU run: the new tests on CUDA first (the gradient-dtype check, the static-input property
# tests, eager and compiled), then the package and integration suites (suite.sh).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name())" | tee "$OUT/versions.txt"
(cd packages/flexsn-nn && timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_dtype_dependent_core.py \
  2>&1 | tee "$OUT/focused-nn.log" | tail -4)
timeout 300 python3 -m pytest -q -rfE -p no:cacheprovider tests-integration/test_properties_static.py \
  tests-integration/test_properties.py 2>&1 | tee "$OUT/focused-properties.log" | tail -6
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 | tail -4
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 | tail -4
