#!/usr/bin/env bash
# run8: the statics' gradient sums by view (sum_probe.py)
cd "$(dirname "$0")/../../.."
python3 tools/results/gpu-2026-11-28i/sum_probe.py 2>&1 | tail -8
