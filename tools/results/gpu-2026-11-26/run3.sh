#!/usr/bin/env bash
# Device call 3 of this stop: wrapt on this image? (else the carried pure-Python copy in .wrapt), the hop
# and nn tests after the on-import change, then the cold first-training probe again (import no longer
# pulls in torch's compiler).
set -uo pipefail
cd "$(dirname "$0")/../../.."
base=$OUT
mkdir -p "$base/tests" "$base/cold"
if python3 -c "import wrapt" 2>/dev/null; then echo "wrapt: on the image"; else echo "wrapt: carried (.wrapt, pure Python)"; export PYTHONPATH=$PWD/.wrapt${PYTHONPATH:+:$PYTHONPATH}; fi
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -):${PYTHONPATH:-}
unset TRITON_INTERPRET
python3 -c "import time, torch, sys; t=time.perf_counter(); import flexsn_nn; print('import flexsn_nn', round(time.perf_counter()-t, 3), 's; torch._dynamo imported:', 'torch._dynamo' in sys.modules)"
timeout 300 python3 -m pytest packages/flexsn-hop/tests packages/flexsn-nn/tests/test_module.py packages/flexsn-nn/tests/test_reliability.py -q -n 8 -p no:cacheprovider 2>&1 | tee "$base/tests/tests.log" | tail -4
OUT=$base/cold bash tools/results/gpu-2026-11-26/cold-train-13q/run.sh
