#!/usr/bin/env bash
# run3: the issues' yardsticks on the final tree, unchanged (../shared/bench copied into .ab/sharedbench/, which
# does not travel unless carried): bench_anchors.py at T = 32 (T = 8 ran in gpu-2026-11-28e run5), then bench_plif.py.
cd "$(dirname "$0")/../../.."
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
TS=32 timeout 400 python3 .ab/sharedbench/bench_anchors.py > "$OUT/anchors.log" 2>&1; echo "anchors rc=$?"
timeout 150 python3 .ab/sharedbench/bench_plif.py > "$OUT/plif.log" 2>&1; echo "plif rc=$?"
grep -h copy_ratio "$OUT"/anchors.log "$OUT"/plif.log | python3 -c '
import sys, json
for l in sys.stdin:
    try: r = json.loads(l)
    except Exception: continue
    print(r.get("case"), r.get("core", ""), r.get("impl", ""), r.get("T"), round(r["copy_ratio"], 3))'
