#!/usr/bin/env bash
# run4: after the list-of-names change (87503fb, Python only): the tests it touched, on CUDA, SpikingJelly from .whl.
cd "$(dirname "$0")/../../.."
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
timeout 200 python3 -m pytest -q -p no:cacheprovider -n 8 tests-integration/test_spikingjelly_parity.py \
  packages/flexsn-nn/tests/test_unfollowed_reads.py packages/flexsn-nn/tests/test_constants_change.py \
  packages/flexsn-trace/tests 2>&1 | tail -3
