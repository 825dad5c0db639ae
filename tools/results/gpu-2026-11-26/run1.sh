#!/usr/bin/env bash
# Device call 1 of this stop: the packages' GPU suite, then the cold first-training probe.
set -uo pipefail
cd "$(dirname "$0")/../../.."
base=$OUT
mkdir -p "$base/suite" "$base/cold"
OUT=$base/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
OUT=$base/cold bash tools/results/gpu-2026-11-26/cold-train-13q/run.sh
