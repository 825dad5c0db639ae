#!/usr/bin/env bash
# run5: the head (after run4: the cached_property search, the test helper, served_dynamically's guard): the
# packages' suite on CUDA with a cold FlexSN cache (suite.sh), then SpikingJelly 2.0 parity (.whl carried).
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 2>&1 | tail -4
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
echo "== parity with SpikingJelly 2.0"
PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -) timeout 120 python3 -m pytest tests-integration/test_spikingjelly_parity.py \
  -q -rf -p no:cacheprovider -n 8 2>&1 | grep -E "^(E  |FAILED)|passed|failed" | tail -15
rm -f "$OUT"/junit-*.xml
