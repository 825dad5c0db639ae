#!/usr/bin/env bash
# Device call 2: after plans in any dense memory order (channels-last included) for eager calls and the ops,
# the convnet step under torch.compile's default mode, this tree against .ab/base (b5959ec, before op plans),
# alternated twice in fresh processes; then eager on a channels-last network (the eager plans' new case).
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
run() {  # tree label impls [extra args]
  local src=$1 label=$2 impls=$3; shift 3
  mkdir -p "$OUT/$label"
  PYTHONPATH=$(ls -d "$src"/packages/*/src | paste -sd: -) timeout 150 python3 "$src/tools/bench_net.py" --out "$OUT/$label" \
    --rep 21 --what train,infer --impls "$impls" "$@" 2>&1 | grep '^| [ti]' | sed "s/^/$label /"
}
for round in 1 2; do
  run "$PWD" new$round flexsn_compile,flexsn_compile_nofuse
  run "$PWD/.ab/base" base$round flexsn_compile,flexsn_compile_nofuse
done
for round in 1 2; do
  run "$PWD" cl-new$round flexsn --channels-last
  run "$PWD/.ab/base" cl-base$round flexsn --channels-last
done
