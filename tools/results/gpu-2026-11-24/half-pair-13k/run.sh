#!/usr/bin/env bash
# #13: bf16/fp16 training calls run the kernel pair without the float32 carrier
# (flexsn_runtime.training_kernels). One device call: ../carrier-13j/half_b2b.py (fp32 and bf16,
# back to back) on this tree with the default (the pair chosen by dtype) and with FLEXSN_CARRIER=0
# (no carrier for any dtype), alternated twice; then the startup part of tools/bench_static.py
# (cold and warm first result: the training trace now renders both pairs).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
for c in 1 0 1 0; do
    FLEXSN_CARRIER=$c timeout 110 python3 tools/results/gpu-2026-11-24/carrier-13j/half_b2b.py carrier$c 2>&1 | grep ratio
done
timeout 100 python3 tools/bench_static.py --out "$OUT/startup" --parts startup 2>&1 | tail -6
