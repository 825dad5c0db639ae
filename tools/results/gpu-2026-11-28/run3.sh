#!/usr/bin/env bash
# Device call 3: new_empty allocations in the launch plans (#14 host time). The launch-plan, CUDA-graph,
# module and training-op tests on the GPU, then per-call copy ratios of this tree and of the tree before the
# change (.ab = HEAD~1 of the commit that adds this script's results), alternated new / old / new / old,
# no peers (SpikingJelly's wheel is not on this host).
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
NEW=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
OLD=$(ls -d "$PWD"/.ab/packages/*/src | paste -sd: -)
mkdir -p "$OUT/tests"
PYTHONPATH=$NEW timeout 150 python3 -m pytest -q -p no:cacheprovider -n 8 packages/flexsn-runtime/tests \
    packages/flexsn-nn/tests/test_cuda_graphs.py packages/flexsn-nn/tests/test_module.py 2>&1 | tail -3 | tee "$OUT/tests/tests.log"
i=0
for v in new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 100 python3 tools/bench_per_call.py --out "$OUT/$i-$v" --peers --rep 61 --T 8 32 2>&1 \
        | grep -v "^W1\|warn" | tail -9
done
