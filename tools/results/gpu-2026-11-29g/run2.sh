#!/usr/bin/env bash
# run2: the convnet step (tools/bench_net.py, T = 8, B = 64) on the head with every implementation in one process:
# FlexSN eager, compiled (neighbour pass on / off), reduce-overhead (on / off), the plain loop compiled / under
# reduce-overhead, SpikingJelly's LIFNode (.whl carried); training and inference, 31 timed steps each. README's
# convnet table is this run.
cd "$(dirname "$0")/../../.."
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
python3 -c "import time; t=time.perf_counter(); sum(range(100000)); print('sum(range(1e5)) us', round((time.perf_counter()-t)*1e6))"
timeout 570 python3 tools/bench_net.py --what train,infer --rep 31 --out "$OUT" 2>&1 | grep -E '^\{|^\||Error|error' | cut -c1-260
