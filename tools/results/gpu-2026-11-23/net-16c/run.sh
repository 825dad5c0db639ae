#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1 TORCHINDUCTOR_COMPILE_THREADS=1
export TORCHINDUCTOR_CACHE_DIR=/tmp/indcache
unset TRITON_INTERPRET
timeout 300 python3 tools/results/gpu-2026-11-23/net-16c/variants.py 2>&1 | grep -v "^W1\|DEBUG" | grep "OK\|FAIL" | tee "$OUT/variants.log"
true

ls "$OUT"
