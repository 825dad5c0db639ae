#!/usr/bin/env bash
# The shipped chunk of 4 (run7: chunk 8 put the first training step past 1 s): focus tests on CUDA, the sweep's
# default against the saved pair alternated, tools/bench_per_call.py (fp32), PLIF per call and startup.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
timeout 150 python3 -m pytest -q -rfE -p no:cacheprovider -n 8 packages/flexsn-nn/tests/test_recompute.py \
    packages/flexsn-nn/tests/test_carrier_kernels.py packages/flexsn-nn/tests/test_explain.py \
    packages/flexsn-runtime/tests/test_ops.py packages/flexsn-runtime/tests/test_layout.py \
    packages/flexsn-runtime/tests/test_launchers.py packages/flexsn-runtime/tests/test_training_plan.py \
    packages/flexsn-runtime/tests/test_prewarm.py packages/flexsn-nn/tests/test_cuda_graphs.py 2>&1 | tee "$OUT/focus.log" | tail -2
for run in default-1 saved-1 default-2 saved-2; do
    v=${run%-*}
    timeout 100 python3 tools/results/gpu-2026-12-04/chunk_sweep.py --variant $v --out "$OUT/$run" > "$OUT/sweep_$run.log" 2>&1
    python3 - "$OUT/$run/sweep_$v.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(f"{r['variant']:>7} {r['case']:>4} {r['dtype']:>8} T={r['T']:>2}  b2b {r['back_to_back']:.3f}  per call {r['per_call']:.3f}  err {r['grad_err_vs_loop']:.1e}")
PY
done
timeout 150 python3 tools/bench_per_call.py --out "$OUT/per_call-fp32" --dtype fp32 --warmup 10 --rep 61 > "$OUT/per_call-fp32.log" 2>&1
tail -9 "$OUT/per_call-fp32.log"
timeout 130 python3 tools/bench_static.py --parts plif startup --no-compile --out "$OUT/static" > "$OUT/static.log" 2>&1
grep -h '"plif_train"\|"startup"' "$OUT/static.log" | cut -c1-160
