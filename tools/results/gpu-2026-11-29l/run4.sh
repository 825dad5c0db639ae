#!/usr/bin/env bash
# run4 (two H200s): where rank 0's host time goes in FlexSN's reduce-overhead DDP step (cProfile of 20 steps) on one
# GPU and on two, and DDP's reducer traced by compiled autograd (--ddp-optimizer python_reducer) against the split.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
run() {  # $1: processes, rest: scale_ddp.py's options
  local n=$1; shift
  local log="$OUT/log_${n}gpu_$(echo "$@" | tr ' -' '_').txt"
  timeout 150 torchrun --nproc_per_node=$n tools/scale_ddp.py --out "$OUT/scale" "$@" > "$log" 2>&1
  grep -E '^\{' "$log" | sed -E 's/"graph_breaks": \{.*\}, "cudagraph/"graph_breaks": "...", "cudagraph/' | cut -c1-600
  grep -iE 'skipping cudagraph|Error' "$log" | sort | uniq -c | head -5
}
run 1 --neuron triton --compile reduce-overhead --cprofile 20
run 2 --neuron triton --compile reduce-overhead --cprofile 20
run 2 --neuron triton --compile reduce-overhead --ddp-optimizer python_reducer
run 2 --neuron torch --compile reduce-overhead --ddp-optimizer python_reducer
