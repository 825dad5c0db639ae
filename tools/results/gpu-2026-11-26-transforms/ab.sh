#!/usr/bin/env bash
# Per-call LIF timings (tools/bench_per_call.py, fp32, flexsn only), this tree ("new") alternated with the
# tree before this stop (9bfca83, carried in .ab/old: "old"), three processes each: the replay bookkeeping
# adds host time to every call (about 0.8 us on the CPU).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
new=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
old=$(ls -d "$PWD"/.ab/old/packages/*/src | paste -sd: -)
for i in ${ROUNDS:-1 2 3}; do
  for tree in new old; do
    path=$new; [ "$tree" = old ] && path=$old
    mkdir -p "$OUT/$tree-$i"
    PYTHONPATH=$path timeout 150 python3 tools/bench_per_call.py --out "$OUT/$tree-$i" --cases lif --impls flexsn \
      --peers --warmup 20 --rep 61 2>&1 | tail -6 | sed "s/^/$tree-$i /"
  done
done
