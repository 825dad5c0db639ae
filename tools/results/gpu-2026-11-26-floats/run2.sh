#!/usr/bin/env bash
# Second call: the tree after the dead-code drop (a3ff62c) and explain's dtype report, focused tests on CUDA.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name())" | tee "$OUT/versions.txt"
(cd packages/flexsn-hop && timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_static_inputs.py tests/test_sizes.py \
  2>&1 | tee "$OUT/focused-hop.log" | tail -4)
(cd packages/flexsn-nn && timeout 250 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_compiled_float_attributes.py \
  tests/test_dtype_dependent_core.py tests/test_explain.py 2>&1 | tee "$OUT/focused-nn.log" | tail -4)
