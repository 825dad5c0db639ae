#!/usr/bin/env bash
# run3 (packages) / run4 (integration): the GPU suites after this session's changes, SpikingJelly 2.0 installed
# (from .whl, --no-deps) so tests-integration/test_spikingjelly_parity.py runs too.
cd "$(dirname "$0")/../../.."
pip install --no-index --no-deps .whl/*.whl -q 2>&1 | grep -v WARNING
python3 -c "import spikingjelly; print('spikingjelly', spikingjelly.__file__)" 2>&1 | tail -1
bash tools/results/gpu-2026-11-24/suite.sh "${1:-packages}" -n 8
