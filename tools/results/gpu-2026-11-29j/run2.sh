#!/usr/bin/env bash
# run2: first the two dynamic-T test files, fixed after run1 to run on the kernels' device; then the convnet step
# (tools/bench_net.py, T = 8) timed at B = 48 after one step at B = 64: the graph Dynamo compiles for a second batch
# size (symbolic), which the neighbour pass now fuses. FlexSN under reduce-overhead and compiled, pass on / off,
# against the plain loop under reduce-overhead; training and inference.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 110 python3 -m pytest -q -rfE -p no:cacheprovider packages/flexsn-hop/tests/test_dynamo.py \
    packages/flexsn-nn/tests/test_compiled_lengths.py 2>&1 | tee "$OUT/dynamic_T_tests.log" | tail -3
python3 -c "import time; t=time.perf_counter(); sum(range(100000)); print('sum(range(1e5)) us', round((time.perf_counter()-t)*1e6))"
timeout 460 python3 tools/bench_net.py --what train,infer --rep 21 --B 64 --second-B 48 \
    --impls flexsn_ro,flexsn_ro_nofuse,loop_ro,flexsn_compile,flexsn_compile_nofuse --out "$OUT" 2>&1 \
    | grep -E '^\{|^\||Error|error' | cut -c1-300
