#!/usr/bin/env bash
# run1: what the thirty-second stop added without a GPU: the arity test counting a CUDA-capturing core on
# CUDA, the SpikingJelly parity suite on CUDA (with from_spikingjelly), and bench_per_call --processes.
cd "$(dirname "$0")/../../.."
SRC=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
echo "== SpikingJelly 2.0 form (arity), CUDA"
PYTHONPATH=$SRC timeout 120 python3 -m pytest packages/flexsn-nn/tests/test_spikingjelly_form.py packages/flexsn-nn/tests/test_migrate.py -q -p no:cacheprovider -rs 2>&1 | tail -4
echo "== parity with SpikingJelly 2.0, CUDA"
PYTHONPATH=/tmp/site:$SRC timeout 240 python3 -m pytest tests-integration/test_spikingjelly_parity.py -q -p no:cacheprovider -n 8 2>&1 | tail -3
for th in on off; do
  echo "== bench_per_call --processes 4, autograd threads $th"
  PYTHONPATH=/tmp/site:$SRC timeout 200 python3 tools/bench_per_call.py --out "$OUT/pc_$th" --T 8 32 --cases lif \
    --impls flexsn sj_lif --peers sj_lif --autograd-threads $th --processes 4 2>&1 | tail -6
done
