#!/usr/bin/env bash
# Device call 5: where a per-call training step's time goes at T = 8 (LIF with constants against PLIF and
# per-channel statics), torch.profiler timelines of single steps (step_profile.py).
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1 PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
timeout 200 python3 tools/results/gpu-2026-12-06/step_profile.py "$OUT/step_profile.json" 2>&1 | grep -v "^W1\|warn"
