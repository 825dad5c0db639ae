#!/usr/bin/env bash
# #16: where the compiled training step's time goes, neighbour pass on / off (CPU + CUDA profile, host vs GPU time).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1 CPU_PROFILE=1
unset TRITON_INTERPRET
timeout 400 python3 tools/results/gpu-2026-11-23/net-16b/probe.py train flexsn_compile,flexsn_compile_nofuse 2>&1 | grep -v "^W1" > "$OUT/probe.log"
grep "host" "$OUT/probe.log"
