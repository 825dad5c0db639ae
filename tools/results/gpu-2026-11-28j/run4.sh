#!/usr/bin/env bash
# run4: the full suite on CUDA on this stop's code (per-run static sums, neighbour fusion on by default), cold FlexSN
# cache: packages, integration, SpikingJelly parity; then the warnings of fallbacks and failed rewrites in the logs.
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 2>&1 | tail -4
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 2>&1 | tail -4
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
echo "== parity with SpikingJelly 2.0"
PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -) timeout 120 python3 -m pytest tests-integration/test_spikingjelly_parity.py \
  -q -rf -p no:cacheprovider -n 8 2>&1 | grep -E "^(E  |FAILED)|passed|failed" | tail -15
echo "== rewrites that failed, fused kernels unavailable (warning texts, counted)"
grep -ho "absorbing the producers of a scan failed[^;]*\|fused kernels unavailable[^;]*\|this scan runs on the eager loop" "$OUT"/gpu_tests-*.log | sort | uniq -c | head -20
rm -f "$OUT"/junit-*.xml
