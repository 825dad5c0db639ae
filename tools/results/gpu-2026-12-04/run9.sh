#!/usr/bin/env bash
# The GPU suites on the final tree (chunk 4).
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=$OUT/suite bash -c 'mkdir -p $OUT; bash tools/results/gpu-2026-11-24/suite.sh packages -n 8'
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
