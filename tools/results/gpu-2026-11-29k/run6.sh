#!/usr/bin/env bash
# run6 (two H200s): run5's compiled-against-eager DDP check again with inputs that make the readout fire (run5's
# losses stayed at ln 10: no readout spike, so only the gradients were compared).
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
for mode in default reduce-overhead; do
  timeout 200 torchrun --nproc_per_node=2 tools/results/gpu-2026-11-29k/ddp_compiled_check.py $mode 2>&1 \
    | grep -E '^\{|Error|error' | grep -v Warning | cut -c1-400 | head -8
done
