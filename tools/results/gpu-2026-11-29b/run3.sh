#!/usr/bin/env bash
# run3: the issue's PLIF yardstick (../shared/bench/bench_plif.py, copied here as bench_plif.py: ../shared does not
# travel), per call, peers in the same process, T = 8 and 32.
cd "$(dirname "$0")/../../.."
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
here=tools/results/gpu-2026-11-29b
timeout 470 python3 $here/bench_plif.py 2>&1 | grep -E '^\{' | cut -c1-300
