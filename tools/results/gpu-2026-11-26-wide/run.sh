#!/usr/bin/env bash
# Steps of 2**31 neurons or more (tests/test_large_steps.py) on the tree before the fix (.ab/old, expected
# to fail) and on this tree; back-to-back LIF kernels of both trees (the widened index must cost nothing
# at int32 sizes); then the package suite.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
new=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
old=$(ls -d "$PWD"/.ab/old/packages/*/src | paste -sd: -)
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name())" | tee "$OUT/versions.txt"
for tree in old new; do
  path=$new; [ "$tree" = old ] && path=$old
  export FLEXSN_CACHE_DIR=$OUT/cache-$tree
  (cd packages/flexsn-nn && PYTHONPATH=$path timeout 150 python3 -m pytest -q -rfE -p no:cacheprovider \
    tests/test_large_steps.py 2>&1 | tee "$OUT/large-$tree.log" | tail -4 | sed "s/^/$tree: /")
done
unset FLEXSN_CACHE_DIR
for i in 1 2; do
  for tree in new old; do
    path=$new; [ "$tree" = old ] && path=$old
    PYTHONPATH=$path timeout 120 python3 tools/bench.py --out "$OUT/bench-$tree-$i" --T 8 32 --dtypes fp32 \
      --impls triton clone --cases lif-inference lif-training --no-startup --warmup 10 --rep 50 2>&1 | tail -8 | sed "s/^/$tree-$i /"
  done
done
export PYTHONPATH=$new
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 | tail -4
