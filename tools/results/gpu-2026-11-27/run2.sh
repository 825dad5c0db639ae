#!/usr/bin/env bash
# Device call 2: the lowering test that failed in run1 and the trace tests, the cold first-result profile
# (cProfile of a fresh process, cold caches, nothing imported before the clock), then the integration suite.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
base=$OUT
mkdir -p "$base/suite" "$base/profile"
python3 -m pytest -q -p no:cacheprovider -n 8 packages/flexsn-codegen/tests/test_lowering_ops.py packages/flexsn-trace/tests 2>&1 | tail -4 | tee "$base/suite/lowering_and_trace.log"
for n in plif lif; do
    c=$(mktemp -d)
    FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$c/t timeout 200 python3 tools/results/gpu-2026-11-27/cold-profile/cold_profile.py $n cold > "$base/profile/profile_${n}_cold.txt" 2>&1
    tail -1 "$base/profile/profile_${n}_cold.txt"; rm -rf "$c"
done
OUT=$base/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8
