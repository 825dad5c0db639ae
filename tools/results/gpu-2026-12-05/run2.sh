#!/usr/bin/env bash
# After the watched-number fixes (global objects' methods, submodules, torch modules): focus tests first,
# then the packages suite (tracing changed for every core that reads a captured tensor).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
python3 -c "import torch; print(torch.__version__, torch.cuda.get_device_name())"
mkdir -p "$OUT/focus" "$OUT/suite"
timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider -n 8 \
    packages/flexsn-runtime/tests/test_captures.py packages/flexsn-runtime/tests/test_captures_places.py \
    packages/flexsn-nn/tests/test_static_inputs.py packages/flexsn-nn/tests/test_constants_change.py \
    packages/flexsn-trace/tests/test_constants.py packages/flexsn-nn/tests/test_plain_attributes.py 2>&1 \
    | tee "$OUT/focus/focus.log" | tail -15
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
