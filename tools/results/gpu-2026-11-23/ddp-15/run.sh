#!/usr/bin/env bash
# #15's 2-GPU run (tools/scale_ddp.py on 1 then 2 GPUs), and #16's neighbour tests on CUDA, on an nvidia-h200-x2.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
nvidia-smi -L | tee "$OUT/gpus.txt"
for n in 1 2 1 2; do
    timeout 150 python3 -m torch.distributed.run --standalone --nproc_per_node=$n tools/scale_ddp.py --out "$OUT" 2>&1 \
        | grep -v "^W1\|warn" | tail -3
done | tee "$OUT/scale.log"
timeout 200 python3 -m pytest -q -p no:cacheprovider packages/flexsn-hop/tests/test_neighbour_pass.py \
    tests-integration/test_neighbour_fusion.py tests-integration/test_ddp.py 2>&1 | tail -4 | tee "$OUT/tests.log"
