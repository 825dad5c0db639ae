#!/usr/bin/env bash
# run3 (two H200s): run2 found the compiled DDP step host-bound (host 2.9-3.1 ms per step on two GPUs against 1.5 on
# one; Dynamo breaks the DDP module's graph at DDP's logger call). Here the network is compiled inside DDP instead
# (--compile-inner), against compiling the DDP module, in the same run; FlexSN and the plain loop, reduce-overhead.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
run() {  # $1: processes, rest: scale_ddp.py's options
  local n=$1; shift
  local log="$OUT/log_${n}gpu_$(echo "$@" | tr ' -' '_').txt"
  timeout 120 torchrun --nproc_per_node=$n tools/scale_ddp.py --out "$OUT/scale" "$@" > "$log" 2>&1
  grep -E '^\{' "$log" | sed -E 's/"graph_breaks": \{.*\}, "cudagraph/"graph_breaks": "...", "cudagraph/' | cut -c1-600
  grep -iE 'skipping cudagraph|Error' "$log" | sort | uniq -c | head -5
}
run 2 --neuron triton --compile reduce-overhead --compile-inner
run 2 --neuron triton --compile reduce-overhead
run 2 --neuron triton --compile default --compile-inner
run 2 --neuron torch --compile reduce-overhead --compile-inner
run 2 --neuron triton --compile none
