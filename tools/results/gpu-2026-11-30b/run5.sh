#!/usr/bin/env bash
# run5: the reference benchmarks on this stop's head, peers in the same process (SpikingJelly 2.0 from .whl):
# ../shared/bench/bench_small.py (small LIF layers, where host time is all there is: NCL 8,192, 262,144 and
# 4,194,304), bench_anchors.py (#14) and bench_plif.py (#13). ../shared/bench travels as .ab/bench (carry .ab, .whl).
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
export FLEXSN_CACHE_DIR=$(mktemp -d)
NCLS=8192,262144,4194304 timeout 200 python3 .ab/bench/bench_small.py 2>&1 | grep -E '^\{|Error' | tee "$OUT/small.log"
timeout 200 python3 .ab/bench/bench_anchors.py 2>&1 | grep -E '^\{|Error' | tee "$OUT/anchors.log" | tail -3
timeout 150 python3 .ab/bench/bench_plif.py 2>&1 | grep -E '^\{|Error' | tee "$OUT/plif.log" | tail -3
