#!/usr/bin/env bash
# #16: profile the compiled convnet step with the neighbour pass on / off; the training failure in full.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1 TORCHINDUCTOR_COMPILE_THREADS=1
unset TRITON_INTERPRET
timeout 500 python3 tools/results/gpu-2026-11-23/net-16b/probe.py infer,train flexsn_compile,flexsn_compile_nofuse 2>&1 | grep -v "^W1" | tail -150 > "$OUT/probe.log"
tail -5 "$OUT/probe.log"
