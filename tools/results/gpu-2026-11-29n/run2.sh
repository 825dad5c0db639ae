#!/usr/bin/env bash
# Fiftieth stop, run2: the suites on CUDA after captured tensors are read from their anchors too, and the guards of a
# network whose cores capture parameters (captures_guards.py), the head's tree and the one before (.ab/base), three
# processes each, alternated.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONUNBUFFERED=1
here=tools/results/gpu-2026-11-29n
mkdir -p "$OUT/captures"
for i in 1 2 3; do
  (cd .ab/base && PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd:) python3 tools/captures_guards.py | sed "s/^/base$i /")
  PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd:) python3 $here/captures_guards.py | sed "s/^/new$i  /"
done | tee "$OUT/captures/rows.txt"
OUT=$OUT bash tools/gpu_suite.sh packages -n 8 --maxfail=5
OUT=$OUT bash tools/gpu_suite.sh integration -n 8 --maxfail=5
