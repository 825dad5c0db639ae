#!/usr/bin/env bash
# run2: the ops registered with torch.library.Library (this tree) against torch.library.custom_op (.ab/base, the tree
# before), alternated in fresh processes: one op call's host µs (op_host.py), then the compiled convnet step's host and
# wall ms (net_host.py, infer and train), the plain loop once for reference. Outputs tarred (the file count is limited).
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
NEW=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
BASE=$(ls -d "$PWD"/.ab/base/packages/*/src | paste -sd: -)
W=$(mktemp -d)
for round in 1 2; do
  for tree in new base; do
    P=$NEW; [ $tree = base ] && P=$BASE
    echo "== op_host $tree round $round"
    PYTHONPATH=$P OUT=$W timeout 120 python3 tools/results/gpu-2026-11-29c/op_host.py 2>&1 | head -1
  done
done
for round in 1 2; do
  for tree in new base; do
    P=$NEW; [ $tree = base ] && P=$BASE
    for w in infer train; do
      mkdir -p $W/net_${tree}_$round
      echo "== net_host $tree $w round $round"
      PYTHONPATH=$P WHAT=$w OUT=$W/net_${tree}_$round timeout 150 python3 tools/results/gpu-2026-11-29c/net_host.py flexsn_compile 2>&1 | grep -E '^\{|Error' | cut -c1-300
    done
  done
done
mkdir -p $W/loop
for w in infer train; do
  PYTHONPATH=$NEW WHAT=$w OUT=$W/loop timeout 150 python3 tools/results/gpu-2026-11-29c/net_host.py loop_compile 2>&1 | grep -E '^\{|Error' | cut -c1-300
done
rm -f $W/*/*trace.json
tar -czf "$OUT/run2.tgz" -C $W .
