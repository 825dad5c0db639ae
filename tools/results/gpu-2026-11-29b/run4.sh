#!/usr/bin/env bash
# run4: the tests of the T = 0 paths on CUDA after the last review commits (output_dtypes' TypeError,
# flexsn_trace.empty_sequences, reference_scan's states reused), head ef24278.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 400 python3 -m pytest -q -p no:cacheprovider -n 8 -rfE packages/flexsn-trace/tests packages/flexsn-nn/tests/test_shapes.py \
  packages/flexsn-nn/tests/test_module.py packages/flexsn-runtime/tests/test_flexsn_kernel.py packages/flexsn-runtime/tests/test_launch_plan.py \
  packages/flexsn-hop/tests 2>&1 | tee "$OUT/run4.log" | tail -6
