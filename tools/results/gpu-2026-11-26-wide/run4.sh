#!/usr/bin/env bash
# After the layout checks (sparse / nested tensors refused by name; a try around the call cache's hot
# path): those tests on CUDA, the packages suite, then per-call LIF timings of this tree against the
# tree before (20fc49c, carried in .ab/old), alternated in fresh processes.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
new=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
old=$(ls -d "$PWD"/.ab/old/packages/*/src | paste -sd: -)
export PYTHONPATH=$new
timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider packages/flexsn-nn/tests/test_layouts.py \
  packages/flexsn-hop/tests/test_eager.py packages/flexsn-runtime/tests/test_ops.py 2>&1 | tee "$OUT/focused.log" | tail -3
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 | tail -3
work=$(mktemp -d)
for i in 1 2 3 4; do
  for tree in new old; do
    path=$new; [ "$tree" = old ] && path=$old
    PYTHONPATH=$path timeout 100 python3 tools/bench_per_call.py --out "$work/$tree-$i" --cases lif --impls flexsn \
      --peers --warmup 20 --rep 61 2>&1 | tail -6 | sed "s/^/$tree-$i /" | tee -a "$OUT/per_call.txt"
  done
done
tar czf "$OUT/per_call.tgz" -C "$work" .
