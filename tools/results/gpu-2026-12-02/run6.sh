#!/usr/bin/env bash
# After the second review mend (one jit_kwargs for every JITFunction call: launch, interpreter, compile ahead):
# the runtime, nn and trace tests, then the integration suite.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 300 python3 -m pytest -q -p no:cacheprovider -rfE -n 8 packages/flexsn-runtime/tests packages/flexsn-nn/tests \
    packages/flexsn-trace/tests 2>&1 | tee "$OUT/after-second-mend.log" | tail -3
mkdir -p "$OUT/suite"
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
