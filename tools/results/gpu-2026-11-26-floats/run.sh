#!/usr/bin/env bash
# This stop's second GPU run: floats Dynamo lifts into flex_sn_scan's body read by the kernels (flexsn_hop.scalars),
# on CUDA (a Dynamo-lifted float arrives as a 0-d float64 CPU tensor there), then the package and integration suites.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name())" | tee "$OUT/versions.txt"
(cd packages/flexsn-hop && timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_static_inputs.py tests/test_sizes.py \
  2>&1 | tee "$OUT/focused-hop.log" | tail -4)
(cd packages/flexsn-nn && timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_compiled_float_attributes.py \
  tests/test_dtype_dependent_core.py 2>&1 | tee "$OUT/focused-nn.log" | tail -4)
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 | tail -4
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 | tail -4
