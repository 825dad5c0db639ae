#!/usr/bin/env bash
# run2: SpikingJelly parity on CUDA, the changed neuron tests, and the per-call lead's repeats.
cd "$(dirname "$0")/../../.."
nvidia-smi --query-gpu=name --format=csv,noheader
pip install --no-index --no-deps --target /tmp/site .whl/*.whl -q 2>&1 | grep -v WARNING
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
P=tools/results/gpu-2026-11-28e/per_call_probe.py
echo "== per-call: inference then training / training alone / threads off, 3 processes each"
for i in 1 2 3; do
  for v in "" "--train-only" "--threads-off" "--train-only --threads-off"; do
    tag=$(echo "x$v" | tr -d ' -'); timeout 60 python3 $P . $OUT/pc_${tag}_$i.json $v > $OUT/pc_${tag}_$i.log 2>&1
    echo "$tag $i $(grep -E '^training ' $OUT/pc_${tag}_$i.log | python3 -c 'import sys,json; r=json.loads(sys.stdin.read().split(" ",1)[1]); print(round(r["ms"],4), round(r["copy_ratio"],3), "host_us", round(r["host_us_median"]))')"
  done
done
echo "== parity with SpikingJelly 2.0 on CUDA"
PYTHONPATH=/tmp/site:$PYTHONPATH timeout 240 python3 -m pytest tests-integration/test_spikingjelly_parity.py -q -p no:cacheprovider -n 4 2>&1 | tail -4
echo "== changed neuron tests on CUDA"
timeout 300 python3 -m pytest -q -p no:cacheprovider -n 4 packages/flexsn-nn/tests/test_neuron_zoo.py packages/flexsn-nn/tests/test_neuron_attributes.py \
  packages/flexsn-nn/tests/test_cuda_graphs.py packages/flexsn-nn/tests/test_neurons.py packages/flexsn-nn/tests/test_constants_change.py 2>&1 | tail -6
cd $OUT && tar czf pc.tgz pc_* && rm pc_*
