#!/usr/bin/env bash
# Device call 6: the compiled convnet's training step alternated between this tree and .ab/base, twice
# (probe/infer_probe.py train: per-call ms, host ms per step), since single processes moved by 1.5x on this host.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
P=tools/results/gpu-2026-11-28c/probe/infer_probe.py
for round in 1 2; do
  for tree in "$PWD" "$PWD/.ab/base"; do
    label=$([ "$tree" = "$PWD" ] && echo new || echo base)
    PYTHONPATH=$(ls -d "$tree"/packages/*/src | paste -sd: -) timeout 110 python3 $P "$tree" "$OUT/train-$label-$round.json" train 2>&1 \
      | grep " ms " | sed "s/^/$label$round /"
  done
done
