#!/usr/bin/env bash
# After the registry's fingerprint fallback (exported programs) and the shared hop fixture: the export,
# registry and ops tests, the hop and nn tests of this stop, then the packages suite, on CUDA.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider tests-integration/test_export.py \
  packages/flexsn-runtime/tests/test_registry.py packages/flexsn-runtime/tests/test_ops.py 2>&1 | tee "$OUT/focused.log" | tail -3
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 | tail -3
