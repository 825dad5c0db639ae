#!/usr/bin/env bash
# run5 (two H200s): the compiled DDP step with twice the samples per GPU (128: twice the GPU time per step against
# the same host work), one GPU and two, reduce-overhead; then flexsn-hop's tests on CUDA (the T == 0 change).
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
for n in 1 2; do
  timeout 150 torchrun --nproc_per_node=$n tools/scale_ddp.py --out "$OUT/scale" --batch-size 128 \
    --compile reduce-overhead 2>&1 | grep -E '^\{' | sed -E 's/"graph_breaks": \{.*\}, "cudagraph/"graph_breaks": "...", "cudagraph/' | cut -c1-600
done
timeout 200 python3 -m pytest packages/flexsn-hop/tests -q -n 8 -p no:cacheprovider 2>&1 | tail -3
