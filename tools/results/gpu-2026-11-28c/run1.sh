#!/usr/bin/env bash
# Device call 1 (thirtieth stop): the convnet step of ../shared/bench/probe_net.py under torch.compile's default
# mode, with the ops launching from plans (flexsn_runtime.op_plans, this tree) and without (.ab/base: the tree
# before, git archive of b5959ec), alternated in fresh processes; neighbour fusion on and off.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
run() {  # tree label impls
  local src=$1 label=$2 impls=$3
  mkdir -p "$OUT/$label"
  PYTHONPATH=$(ls -d "$src"/packages/*/src | paste -sd: -) timeout 200 python3 "$src/tools/bench_net.py" --out "$OUT/$label" \
    --rep 15 --what train,infer --impls "$impls" 2>&1 | grep -v "^W1\|warn\|DEBUG" | tail -12
}
run "$PWD" new1 flexsn_compile,flexsn_compile_nofuse,flexsn,loop_compile
run "$PWD/.ab/base" base1 flexsn_compile,flexsn_compile_nofuse
run "$PWD" new2 flexsn_compile,flexsn_compile_nofuse
