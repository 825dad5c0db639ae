#!/usr/bin/env bash
# One device call after the forward launch moved ahead of the autograd node: per-call ratios (twice,
# SpikingJelly LIFNode beside), host_probe, then the runtime and nn test packages on the GPU.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
for i in 1 2; do
    timeout 150 python3 tools/bench_per_call.py --out "$OUT/prelaunch-$i" --peers sj_lif --rep 61 --T 8 32 2>&1 | tail -9
done
timeout 120 python3 tools/host_probe.py --out "$OUT/host_probe-prelaunch" 2>&1 | grep -A12 '"timeline_small"' | head -14
timeout 250 python3 -m pytest -q -n 4 -p no:cacheprovider packages/flexsn-runtime/tests packages/flexsn-nn/tests 2>&1 | tail -3
