#!/usr/bin/env bash
# #16 after layout-16g: where the compiled training step's GPU time goes with channels-last scans (profile + Inductor code).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1 KEEP_CODE=1
unset TRITON_INTERPRET
timeout 300 python3 tools/results/gpu-2026-11-23/net-16b/probe.py train flexsn_compile,flexsn_compile_nofuse 2>&1 | grep -v "^W1" > "$OUT/probe.log"
grep "host" "$OUT/probe.log"
