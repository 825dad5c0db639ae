#!/usr/bin/env bash
# The GPU test suite in parts that each fit one device call's 10 minutes:
#   tools/gpu_suite.sh packages|integration|parity [extra pytest args]
# packages: every package's tests; integration: tests-integration without what needs the build tools
# (mypy, hatchling, import-linter are not on the GPU image); parity: SpikingJelly 2.0 parity, with the wheels
# in .whl/ installed to /tmp/site (carry ".whl"). Failures are listed at the end (-rfE); junit and the full log
# go to $OUT when it is set. tools/gpu_tests.sh runs everything in one call instead.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
out=${OUT:-$(mktemp -d)}
part=${1:-packages}; shift || true
skip=()
case "$part" in
packages) paths=(packages/*/tests) ;;
integration)
    paths=(tests-integration)
    skip=(--ignore=tests-integration/test_typing.py --ignore=tests-integration/test_wheels.py
          --ignore=tests-integration/test_release.py -k "not test_import_linter") ;;
parity)
    pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
    export PYTHONPATH=/tmp/site:$PYTHONPATH
    paths=(tests-integration/test_spikingjelly_parity.py) ;;
*) echo "usage: $0 packages|integration|parity [pytest args]" >&2; exit 2 ;;
esac
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
timeout 560 python3 -m pytest "${paths[@]}" -q -rfE -p no:cacheprovider --junitxml="$out/junit-$part.xml" \
    "${skip[@]}" "$@" 2>&1 | tee "$out/gpu_tests-$part.log" | tail -25
