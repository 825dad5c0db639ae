#!/usr/bin/env bash
# Device call 4: the compiled convnet's training step, this tree against .ab/base (probe/infer_probe.py train),
# then the packages suite on CUDA on this tree.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
P=tools/results/gpu-2026-11-28c/probe/infer_probe.py
for tree in "$PWD" "$PWD/.ab/base"; do
  label=$([ "$tree" = "$PWD" ] && echo new || echo base)
  PYTHONPATH=$(ls -d "$tree"/packages/*/src | paste -sd: -) timeout 150 python3 $P "$tree" "$OUT/train-$label.json" train 2>&1 \
    | grep -v "^W1\|warn" | grep -v "   cpu"
done
timeout 400 bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
