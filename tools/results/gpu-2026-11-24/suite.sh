#!/usr/bin/env bash
# The GPU test suite in two device calls (it outgrew one call's 10 minutes):
#   tools/results/gpu-2026-11-24/suite.sh packages|integration [extra pytest args]
# Same deselections as tools/results/gpu-2026-11-23/run_gpu.sh (mypy, hatchling and import-linter
# are not on the GPU image); failures are listed at the end (-rfE), junit in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
part=${1:-packages}; shift || true
case "$part" in
packages) paths=(packages/*/tests) ;;
integration) paths=(tests-integration) ;;
*) echo "usage: $0 packages|integration" >&2; exit 2 ;;
esac
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
timeout 560 python3 -m pytest "${paths[@]}" -q -rfE -p no:cacheprovider --junitxml="$OUT/junit-$part.xml" \
    --ignore=tests-integration/test_typing.py --ignore=tests-integration/test_wheels.py \
    --ignore=tests-integration/test_release.py \
    --deselect tests-integration/test_layering.py::test_import_linter_contract_kept \
    --deselect tests-integration/test_layering.py::test_import_linter_detects_a_planted_break \
    --deselect tests-integration/test_layering.py::test_import_linter_detects_a_planted_cycle \
    --deselect tests-integration/test_layering.py::test_import_linter_ignores_type_checking_imports "$@" 2>&1 \
    | tee "$OUT/gpu_tests-$part.log" | tail -25
