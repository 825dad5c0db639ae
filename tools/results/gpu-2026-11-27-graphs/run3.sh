#!/usr/bin/env bash
# Device call: the integration suite on CUDA (tools/results/gpu-2026-11-24/suite.sh).
set -uo pipefail
cd "$(dirname "$0")/../../.."
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 | tail -3
