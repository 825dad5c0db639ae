#!/usr/bin/env bash
# Device call: per-call LIF, this tree against the session's starting tree (5c14c75, copied to .ab/old),
# alternated in fresh processes; then the issue's PLIF yardstick (../shared/bench/bench_plif.py, copied
# to .ab/sharedbench, SpikingJelly 2.0.0 from .whl) and tools/bench_static.py's overhead part.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
new=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
old=$(ls -d "$PWD"/.ab/old/packages/*/src | paste -sd: -)
for round in 1 2; do
  for tree in old new; do
    src=$new; tool=tools/bench_per_call.py
    [[ $tree == old ]] && src=$old && tool=.ab/old/tools/bench_per_call.py
    PYTHONPATH=$src timeout 120 python3 $tool --out "$OUT/pc-$tree-$round" --cases lif --impls flexsn \
      --warmup 20 --rep 61 --peers 2>&1 | grep -A5 "^case" | sed "s/^/$tree $round: /"
  done
done
PYTHONPATH=/tmp/site:$new OUT=$OUT timeout 240 python3 .ab/sharedbench/bench_plif.py 2>&1 | grep -v "^{" | tail -12
PYTHONPATH=$new timeout 150 python3 tools/bench_static.py --out "$OUT/static" --parts overhead --T 8 32 --warmup 10 --rep 31 2>&1 | tail -12
