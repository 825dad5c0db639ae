#!/usr/bin/env bash
# Run the FlexSN test suite on a CUDA machine, without hatch.
#
#   tools/gpu_tests.sh [extra pytest args]
#   OUT=/some/dir tools/gpu_tests.sh      # also writes $OUT/junit.xml and $OUT/gpu_tests.log
#
# The five packages are used from their source folders (PYTHONPATH), and
# TRITON_INTERPRET is unset, so the tests' device fixtures pick CUDA and the
# generated kernels run compiled instead of interpreted. torch, triton,
# pytest and hypothesis must be importable by $PYTHON (default python3).
set -euo pipefail

cd "$(dirname "$0")/.."
REPO=$PWD
PYTHON=${PYTHON:-python3}

unset TRITON_INTERPRET
src=$(ls -d "$REPO"/packages/*/src | paste -sd: -)
export PYTHONPATH="$src${PYTHONPATH:+:$PYTHONPATH}"

args=(packages/*/tests tests-integration -q)
log=/dev/null
if [[ -n "${OUT:-}" ]]; then
    mkdir -p "$OUT"
    args+=("--junitxml=$OUT/junit.xml")
    log="$OUT/gpu_tests.log"
fi

{
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(hostname) $REPO"
    "$PYTHON" - <<'PY' || true
import torch, triton
print(f"# torch {torch.__version__}, triton {triton.__version__}, cuda {torch.version.cuda}")
if torch.cuda.is_available():
    for i in range(torch.cuda.device_count()):
        print(f"# cuda:{i} {torch.cuda.get_device_name(i)}")
else:
    print("# WARNING: no CUDA device visible; kernel tests will be skipped or fall back")
PY
    echo "# $PYTHON -m pytest ${args[*]} $*"
} 2>&1 | tee "$log"

set +e
"$PYTHON" -m pytest "${args[@]}" "$@" 2>&1 | tee -a "$log"
status=${PIPESTATUS[0]}
set -e
echo "# pytest exit status $status" | tee -a "$log"
exit "$status"
