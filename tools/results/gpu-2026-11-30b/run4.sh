#!/usr/bin/env bash
# run4: the integration suite on CUDA at this stop's head (the new neighbour-pass property test compiles with
# Inductor's Triton backend there).
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT/suite"
OUT=$OUT/suite bash tools/gpu_suite.sh integration -n 8 --maxfail=5 2>&1 | tail -12
