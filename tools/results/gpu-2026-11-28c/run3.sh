#!/usr/bin/env bash
# Device call 3: what moved compiled nofuse inference (probe/infer_probe.py, this tree against .ab/base), then the
# packages suite on CUDA.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
P=tools/results/gpu-2026-11-28c/probe/infer_probe.py
for tree in "$PWD" "$PWD/.ab/base"; do
  label=$([ "$tree" = "$PWD" ] && echo new || echo base)
  PYTHONPATH=$(ls -d "$tree"/packages/*/src | paste -sd: -) timeout 120 python3 $P "$tree" "$OUT/probe-$label.json" 2>&1 | grep -v "^W1\|warn"
done
