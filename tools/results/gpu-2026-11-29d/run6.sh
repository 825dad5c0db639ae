#!/usr/bin/env bash
# run6: after the ops' autograd registration moved into one table (ops._FORMULAS): the op, plan, second-order and
# CUDA-graph tests, the compiled networks, neighbour fusion and export, cold FlexSN cache.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export FLEXSN_CACHE_DIR=$(mktemp -d)
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
timeout 500 python3 -m pytest packages/flexsn-runtime/tests/test_ops.py packages/flexsn-runtime/tests/test_op_plans.py \
  packages/flexsn-runtime/tests/test_swapped_order.py packages/flexsn-nn/tests/test_cuda_graphs.py \
  tests-integration/test_compiled_networks.py tests-integration/test_neighbour_fusion.py tests-integration/test_export.py \
  -q -rf -p no:cacheprovider -n 8 2>&1 | grep -E "^(E  |FAILED)|passed|failed" | tail -15
