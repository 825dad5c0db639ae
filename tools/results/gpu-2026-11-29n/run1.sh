#!/usr/bin/env bash
# Fiftieth stop, run1: the suites on CUDA at the anchored constants' commit, and Dynamo's guards on the convnet on
# this host (the head's tree and the one before, .ab/base, carried), three processes each, alternated.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONUNBUFFERED=1
python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"
python3 -c "import time; t=time.perf_counter(); sum(range(100000)); print('python_sum_range_1e5_ms', (time.perf_counter()-t)*1e3)"
for i in 1 2 3; do
  (cd .ab/base && PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd:) python3 tools/guard_probe.py --out "$OUT/guards/base$i" | sed "s/^/base$i /")
  PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd:) python3 tools/guard_probe.py --out "$OUT/guards/new$i" | sed "s/^/new$i  /"
done
rm -f "$OUT"/guards/*/guards_*.txt
OUT=$OUT bash tools/gpu_suite.sh packages -n 8 --maxfail=5
OUT=$OUT bash tools/gpu_suite.sh integration -n 8 --maxfail=5
