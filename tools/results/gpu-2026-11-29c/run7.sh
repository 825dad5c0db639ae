#!/usr/bin/env bash
# run7: tools/bench_net.py's reduce-overhead inference step (flexsn_ro), this tree and .ab/base alternated, 3 processes each.
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
for round in 1 2 3; do
  for tree in new base; do
    P=$(ls -d "$PWD"/packages/*/src | paste -sd: -); [ $tree = base ] && P=$(ls -d "$PWD"/.ab/base/packages/*/src | paste -sd: -)
    echo "$tree $round $(PYTHONPATH=$P timeout 100 python3 tools/bench_net.py --impls flexsn_ro --what infer --rep 31 --out /tmp 2>&1 | grep -E '^\{' | python3 -c 'import json,sys; print(round(json.loads(sys.stdin.read())["ms"],3))')"
  done
done
