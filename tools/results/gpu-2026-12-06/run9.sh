#!/usr/bin/env bash
# Device call 9: after the dynamic=True fix (compile-time helpers keyed by the kernel's serial name): the runtime and
# nn suites and the compiled networks on CUDA.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1 PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
timeout 400 python3 -m pytest -q -rfE -p no:cacheprovider -n 8 packages/flexsn-runtime/tests packages/flexsn-nn/tests \
    tests-integration/test_compiled_networks.py tests-integration/test_compile_cache.py 2>&1 | tee "$OUT/focus.log" | tail -3
