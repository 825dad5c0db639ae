#!/usr/bin/env bash
# torch.func transforms / forward-mode AD (the eager loop, told once) and activation checkpointing
# (flexsn_nn.replay) on CUDA, then the package and integration suites.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name())" | tee "$OUT/versions.txt"
(cd packages/flexsn-nn && timeout 240 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_function_transforms.py \
  tests/test_activation_checkpointing.py 2>&1 | tee "$OUT/focused-nn.log" | tail -4)
(cd packages/flexsn-hop && timeout 120 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_function_transforms.py \
  2>&1 | tee "$OUT/focused-hop.log" | tail -4)
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 | tail -4
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 | tail -4
