#!/usr/bin/env bash
# One device call: PLIF training per call with a longer warm-up and more repetitions than static-13*
# (tools/bench_static.py --warmup 20 --rep 61, peers included), then a torch.profiler view of a call.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
timeout 300 python3 tools/bench_static.py --out "$OUT/bench" --parts plif --warmup 20 --rep 61 --no-compile 2>&1 | tail -4
python3 -c "
import json
for r in json.load(open('$OUT/bench/static.json')):
    if r.get('case') in ('plif_train', 'copy'): print(r)
"
for T in 32 8; do
    timeout 120 python3 tools/results/gpu-2026-11-23/plif-13f/profile_plif.py $T 2>&1 | tail -32
done
