#!/usr/bin/env bash
# After fixing run2's two failures (the CUDA prewarm test counted specialisations other tests made with the
# same kernel source; README's env table lacked FLEXSN_PREWARM): those two files, then the keys probe.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 200 python3 -m pytest -q -p no:cacheprovider -rfE packages/flexsn-runtime/tests/test_prewarm.py \
    packages/flexsn-runtime/tests tests-integration/test_env.py -n 8 2>&1 | tee "$OUT/focus.log" | tail -5
