#!/usr/bin/env bash
# Device call 5: tools/bench_static.py --parts startup with the training-only first step added, three times.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
for k in 1 2 3; do
    mkdir -p "$OUT/startup-train-$k"
    timeout 150 python3 tools/bench_static.py --parts startup --out "$OUT/startup-train-$k" 2>&1 | tail -3
done
