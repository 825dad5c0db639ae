#!/usr/bin/env bash
# Device call 1 of this stop: the cold first-result probe (cold/run.sh), then the packages' GPU suite.
set -uo pipefail
cd "$(dirname "$0")/../../.."
base=$OUT
mkdir -p "$base/suite" "$base/cold"
OUT=$base/cold bash tools/results/gpu-2026-11-28/cold/run.sh
OUT=$base/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
