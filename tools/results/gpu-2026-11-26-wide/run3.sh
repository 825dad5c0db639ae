#!/usr/bin/env bash
# After the inference_mode rerun (op_autograd), the fingerprint fix and the autocast tests: those tests
# and the large-step test on CUDA, then the package and integration suites.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
git log --oneline -1 2>/dev/null | tee "$OUT/tree.txt"
(cd packages/flexsn-nn && timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_inference_mode.py \
  tests/test_autocast.py tests/test_large_steps.py 2>&1 | tee "$OUT/focused-nn.log" | tail -3)
(cd packages/flexsn-runtime && timeout 100 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_tracecache.py \
  2>&1 | tee "$OUT/focused-runtime.log" | tail -3)
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 | tail -3
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 | tail -3
