#!/usr/bin/env bash
# run3: the full GPU suite and SpikingJelly parity after the ops moved to torch.library.Library (f6f79de), cold FlexSN
# cache (= gpu-2026-11-28g/run2.sh); then which tensors the compiled convnet's backward copies (order_probe.py).
cd "$(dirname "$0")/../../.."
bash tools/results/gpu-2026-11-28g/run2.sh
unset TRITON_INTERPRET
echo "== order probe"
PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) timeout 150 python3 tools/results/gpu-2026-11-29c/order_probe.py 2>&1 | tail -12
