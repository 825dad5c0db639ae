#!/usr/bin/env bash
# After the review mend (Spec in training_plan, _helper_reach returns the helpers it reaches): runtime and nn tests.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 400 python3 -m pytest -q -p no:cacheprovider -rfE -n 8 packages/flexsn-runtime/tests packages/flexsn-nn/tests \
    packages/flexsn-trace/tests 2>&1 | tee "$OUT/after-mend.log" | tail -4
