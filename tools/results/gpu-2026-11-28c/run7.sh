#!/usr/bin/env bash
# Device call 7 (last): after the trace-cache loader (c493bb5) and the restore mend (e32a79e), the runtime tests,
# the module tests that go through plans, CUDA graphs and layouts, and test_export on CUDA; then LIF per call.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1 PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
timeout 200 python3 -m pytest -q -n 8 -p no:cacheprovider packages/flexsn-runtime/tests packages/flexsn-nn/tests/test_cuda_graphs.py \
  packages/flexsn-nn/tests/test_layouts.py packages/flexsn-nn/tests/test_static_inputs.py packages/flexsn-nn/tests/test_call_cache.py \
  tests-integration/test_export.py tests-integration/test_neighbour_fusion.py --junitxml="$OUT/junit-focused.xml" 2>&1 | tail -4 | tee "$OUT/focused.log"
timeout 90 python3 tools/bench_per_call.py --out "$OUT/pc" --cases lif --impls flexsn --peers --warmup 20 --rep 61 2>&1 | grep copy_ratio | python3 -c "import sys, json
for l in sys.stdin:
    r = json.loads(l); print(r['case'], r['mode'], r['T'], r.get('impl'), round(r['copy_ratio'], 3))"
