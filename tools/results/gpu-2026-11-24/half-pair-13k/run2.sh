#!/usr/bin/env bash
# #13 half pair, second call: the packages' and integration tests on the GPU (../suite.sh), then
# ../carrier-13j/half_b2b.py twice more with the default (run.sh's first bf16 PLIF figure at T = 32,
# 0.207, came from the process that tuned the new kernels' launch configurations).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/../suite.sh" packages -n 8
bash "$here/../suite.sh" integration -n 8
cd "$here/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
for c in 1 1; do
    FLEXSN_CARRIER=$c timeout 110 python3 tools/results/gpu-2026-11-24/carrier-13j/half_b2b.py carrier$c 2>&1 | grep "T=32"
done
