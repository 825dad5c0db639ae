#!/usr/bin/env bash
# This stop's GPU run: the new tests on CUDA first, then the package and integration suites (suite.sh).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name())" | tee "$OUT/versions.txt"
(cd packages/flexsn-nn && timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_unfollowed_keys.py \
  tests/test_container_lengths.py tests/test_dtype_dependent_core.py tests/test_flags_and_code_change.py \
  tests/test_constants_change.py tests/test_unfollowed_reads.py 2>&1 | tee "$OUT/focused.log" | tail -8)
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 | tail -4
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 | tail -4
