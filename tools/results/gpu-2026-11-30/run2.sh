#!/usr/bin/env bash
# After run.sh: the recorder traces a foreign tensor on another device as a copy (a CUDA tensor in a
# class attribute beside CPU tracing examples fell over a device error at construction in run.sh).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
mkdir -p "$OUT/places" "$OUT/suite"
FLEXSN_CACHE_DIR=$(mktemp -d) python3 tools/results/gpu-2026-11-30/places_cuda.py 2>&1 | tee "$OUT/places/places_cuda.log"
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
