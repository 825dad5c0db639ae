#!/bin/bash
# run1: the GPU tests of the last stop's two unverified commits (the spike-consumer-reads-state guard 9bb8b99,
# the review mend 337d2ab): the lowering's tests, then in the same process the neighbour-fusion and
# compiled-network tests and the hop package's tests (the template's CPU-side tests compiled on CUDA)
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run1
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/run1/gpu.txt
timeout 540 python3 -m pytest -p no:randomly tests-integration/test_template_lowering.py tests-integration/test_neighbour_fusion.py \
  tests-integration/test_compiled_networks.py packages/flexsn-hop/tests -q -rfE -p no:cacheprovider -p no:logging --tb=short \
  > $OUT/run1/tests.log 2>&1
grep -v "^DEBUG" $OUT/run1/tests.log | grep -B2 -A30 "^____" | head -80
tail -3 $OUT/run1/tests.log
