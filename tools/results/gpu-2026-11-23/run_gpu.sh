#!/usr/bin/env bash
# One device call: the GPU test suite, then the README's benchmark cases (triton + clone).
#   tools/results/gpu-2026-11-23/run_gpu.sh tests|bench|all [extra pytest args]
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
mode=${1:-tests}; shift || true
run_tests() {
    # typing, wheel and release checks need mypy / hatchling / import-linter, absent on the GPU image
    OUT=$OUT timeout 570 tools/gpu_tests.sh --ignore=tests-integration/test_typing.py \
        --ignore=tests-integration/test_wheels.py --ignore=tests-integration/test_release.py \
        --deselect tests-integration/test_layering.py::test_import_linter_contract_kept \
        --deselect tests-integration/test_layering.py::test_import_linter_detects_a_planted_break -p no:cacheprovider "$@"
}
run_bench() {
    timeout 300 python3 tools/bench.py --out "$OUT" --impls triton clone --T 8 32 --no-startup --budget-s 200 --deadline-s 280 2>&1 | tee "$OUT/bench.log"
}
case "$mode" in
tests) run_tests "$@" ;;
bench) run_bench ;;
all) run_bench; run_tests "$@" ;;
esac
