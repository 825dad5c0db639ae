#!/usr/bin/env bash
# Device call 2: first results as tools/bench_static.py's startup part measures them (the issue's
# definition: imports, CUDA context and Triton's driver stubs before the clock; FlexSN's and Triton's
# caches empty, then warm), three times; then the integration suite.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
base=$OUT
mkdir -p "$base/suite"
for k in 1 2 3; do
    mkdir -p "$base/startup-$k"
    timeout 200 python3 tools/bench_static.py --parts startup --out "$base/startup-$k" 2>&1 | tail -3
done
OUT=$base/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
