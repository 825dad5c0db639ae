#!/usr/bin/env bash
# run1: the head (the recorder refuses host reads under a TorchFunctionMode; getters and cached helpers followed)
# on CUDA with a cold FlexSN cache: the packages' suite, the integration suite (through suite.sh, which leaves out
# the import-linter tests), then SpikingJelly 2.0 parity (.whl carried).
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 2>&1 | tail -4
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 2>&1 | tail -4
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
echo "== parity with SpikingJelly 2.0"
PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -) timeout 120 python3 -m pytest tests-integration/test_spikingjelly_parity.py \
  -q -rf -p no:cacheprovider -n 8 2>&1 | grep -E "^(E  |FAILED)|passed|failed" | tail -15
rm -f "$OUT"/junit-*.xml
