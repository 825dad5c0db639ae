#!/usr/bin/env bash
# One device call: does make_fx import torch's compiler on this torch (fresh process, twice: the second
# with bytecode written by the first under PYTHONPYCACHEPREFIX, as an installed torch has); then
# cold_profile.py per neuron with empty caches.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
here=tools/results/gpu-2026-11-27/cold-profile
pyc=$(mktemp -d)
for i in 1 2 3; do PYTHONPYCACHEPREFIX=$pyc python3 $here/make_fx_imports.py 2>&1 | tee -a "$OUT/make_fx_imports.jsonl"; done
one() {  # neuron, mode
    c=$(mktemp -d)
    FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$c/t timeout 200 python3 $here/cold_profile.py $1 $2 > "$OUT/profile_$1_$2.txt" 2>&1
    tail -1 "$OUT/profile_$1_$2.txt"
    rm -rf "$c"
}
one plif aot-imported; one lif aot-imported
