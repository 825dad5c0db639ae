#!/usr/bin/env bash
# After the fullgraph fix (run3 found it): the packages suite. Run again after the pickling fix (run5/) and after the review mend (run6/).
set -uo pipefail
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT/suite"
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
