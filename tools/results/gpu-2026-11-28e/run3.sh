#!/usr/bin/env bash
# run3 (packages) / run4 (integration): the GPU suites after this session's changes; then
# tests-integration/test_spikingjelly_parity.py with SpikingJelly 2.0 (from .whl, --no-deps, on PYTHONPATH).
cd "$(dirname "$0")/../../.."
bash tools/results/gpu-2026-11-24/suite.sh "${1:-packages}" -n 8
if [ "${1:-packages}" = integration ]; then
  pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
  echo "== parity with SpikingJelly 2.0"
  PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -) timeout 200 python3 -m pytest tests-integration/test_spikingjelly_parity.py \
    -q -p no:cacheprovider -n 8 2>&1 | tail -3
fi
