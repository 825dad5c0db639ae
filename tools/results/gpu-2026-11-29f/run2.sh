#!/usr/bin/env bash
# run2: per-call LIF in fp32 and bf16 against x.clone() and SpikingJelly's LIFNode (tools/bench_per_call.py,
# 3 fresh processes each), and where a bf16 inference call's time goes (tools/per_call_floor.py).
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
SRC=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
export FLEXSN_CACHE_DIR=$(mktemp -d)
for dt in fp32 bf16; do
  echo "== bench_per_call --dtype $dt --processes 3"
  PYTHONPATH=/tmp/site:$SRC timeout 200 python3 tools/bench_per_call.py --out "$OUT/pc_$dt" --T 8 32 --cases lif \
    --impls flexsn sj_lif --peers sj_lif --rep 41 --dtype $dt --processes 3 2>&1 | tail -9
done
echo "== per_call_floor bf16"
PYTHONPATH=$SRC timeout 150 python3 tools/per_call_floor.py --out "$OUT/floor_bf16" --dtype bf16 --rounds 3 2>&1 | tail -12
