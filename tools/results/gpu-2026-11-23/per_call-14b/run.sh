#!/usr/bin/env bash
# One device call: per-call copy ratios of this tree and of the tree before #11 (.ab, commit 20e8eed),
# alternated new / old / new, then tools/host_probe.py on this tree.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -2
NEW=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
OLD=/tmp/site:$(ls -d "$PWD"/.ab/packages/*/src | paste -sd: -)
REP=${REP:-61}
i=0
for v in new old new; do
    i=$((i + 1)); P=$NEW; [ $v = old ] && P=$OLD
    PYTHONPATH=$P timeout 200 python3 tools/bench_per_call.py --out "$OUT/$i-$v" --peers sj_lif --rep "$REP" --T 8 32 2>&1 | tail -8
done
PYTHONPATH=$NEW timeout 120 python3 tools/host_probe.py --out "$OUT/host_probe" 2>&1 | tail -3
