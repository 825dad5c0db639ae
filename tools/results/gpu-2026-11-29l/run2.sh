#!/usr/bin/env bash
# run2 (two H200s): run1 found FlexSN's reduce-overhead DDP step 1.33x on two GPUs with the GPU idle 3.3 ms more per
# profiled step than on one; this run records how the compiled step ran (graphs, graph breaks, CUDA-graph skips and
# why: TORCH_LOGS=perf_hints) and the host's time per step, with Dynamo's DDP split and DDP's buffer broadcast on/off.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
run() {  # $1: processes, rest: scale_ddp.py's options
  local n=$1; shift
  TORCH_LOGS=perf_hints timeout 120 torchrun --nproc_per_node=$n tools/scale_ddp.py --compile reduce-overhead \
    --out "$OUT/scale" "$@" > "$OUT/log_${n}gpu_$(echo "$@" | tr ' -' '_').txt" 2>&1
  grep -E '^\{' "$OUT/log_${n}gpu_$(echo "$@" | tr ' -' '_').txt" | cut -c1-700
  grep -iE 'skipping cudagraph|Error' "$OUT/log_${n}gpu_$(echo "$@" | tr ' -' '_').txt" | sort | uniq -c | head -5
}
run 1 --neuron triton
run 2 --neuron triton
run 2 --neuron triton --no-broadcast-buffers
run 2 --neuron triton --ddp-optimizer none  # ran as --no-ddp-split (the same setting; its log: log_2gpu___neuron_triton___no_ddp_split.txt)
run 2 --neuron torch
