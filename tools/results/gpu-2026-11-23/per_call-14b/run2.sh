#!/usr/bin/env bash
# One device call after the call cache: per-call copy ratios with every peer (fp32, compile included;
# bf16), then ../shared/bench/probe_net.py (copy in .ab/) eager and under reduce-overhead.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
timeout 330 python3 tools/bench_per_call.py --out "$OUT/fp32" --compile --peers sj_flexsn sj_lif --rep 61 --T 8 32 2>&1 | tail -10
timeout 100 python3 tools/bench_per_call.py --out "$OUT/bf16" --dtype bf16 --peers sj_lif --rep 61 --T 8 32 2>&1 | tail -10
mkdir -p "$OUT/net" && OUT="$OUT/net" MODES=eager,reduce-overhead ONLY_SJ= timeout 150 python3 .ab/probe_net.py 2>&1 | grep net_ | tail -6
