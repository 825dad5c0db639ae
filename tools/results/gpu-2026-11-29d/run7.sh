#!/usr/bin/env bash
# run7: tools/bench_net.py with its back-to-back column: FlexSN and the plain loop under reduce-overhead, inference and
# training, one process.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
timeout 280 python3 tools/bench_net.py --impls flexsn_ro,loop_ro --what infer,train --rep 31 --out "$OUT" 2>&1 | grep -E '^\|' | cut -c1-220
