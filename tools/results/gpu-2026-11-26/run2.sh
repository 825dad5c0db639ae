#!/usr/bin/env bash
# Device call 2 of this stop: the integration GPU suite, then the cold first-training probe (fixed: the
# module's uses_kernels, which passes the static inputs).
set -uo pipefail
cd "$(dirname "$0")/../../.."
base=$OUT
mkdir -p "$base/suite" "$base/cold"
OUT=$base/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
OUT=$base/cold bash tools/results/gpu-2026-11-26/cold-train-13q/run.sh
