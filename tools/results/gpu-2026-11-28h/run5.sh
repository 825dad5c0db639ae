#!/usr/bin/env bash
# run5: after the masked-write change (6d5ff71: a base's gradient index_put(g, [mask], zeros(count)) becomes a select,
# so such cores train on generated kernels): the masked tests and the property tests on CUDA.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
timeout 170 python3 -m pytest -q -p no:cacheprovider -n 8 packages/flexsn-nn/tests/test_masked_cores.py \
  packages/flexsn-trace/tests/test_masked.py tests-integration/test_properties.py tests-integration/test_properties_static.py 2>&1 | tail -3
