#!/usr/bin/env bash
# Device call 1 (#14/#13 host path, TrainingCall): the runtime, nn and hop suites on CUDA, then per call
# new against old (the tree at 90c634b, carried in .ab/old), alternated: tools/bench_per_call.py (fp32 and bf16).
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
NEW=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
OLD=$(ls -d "$PWD"/.ab/old/packages/*/src | paste -sd: -)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import time,os; t=time.perf_counter(); sum(range(100000)); print('sum_range_us', round((time.perf_counter()-t)*1e6), os.getloadavg())"
mkdir -p "$OUT/suite"
PYTHONPATH=$NEW timeout 240 python3 -m pytest -q -rfE -p no:cacheprovider -n 8 packages/flexsn-runtime/tests \
    packages/flexsn-nn/tests packages/flexsn-hop/tests 2>&1 | tee "$OUT/suite/focus.log" | tail -4
i=0
for v in new old new old; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    for dt in fp32 bf16; do
        echo "== per_call $i $v $dt"
        PYTHONPATH=$P timeout 80 python3 tools/bench_per_call.py --out "$OUT/pc-$i-$v-$dt" --impls flexsn --dtype $dt \
            --rep 61 --warmup 20 --T 8 32 2>&1 | grep -v "^W1\|warn" | tail -4
    done
done
