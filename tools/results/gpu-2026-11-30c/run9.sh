#!/bin/bash
# run9: the mended channels-last test, then in the same process the neighbour-fusion and compiled-network tests
# and the hop package's tests after the lowering was registered and turned off again (its off path is Inductor's
# own fallback), plus the template's CPU-side tests compiled on CUDA
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run9
timeout 500 python3 -m pytest -p no:randomly tests-integration/test_template_lowering.py tests-integration/test_neighbour_fusion.py \
  tests-integration/test_compiled_networks.py packages/flexsn-hop/tests -q -rfE -p no:cacheprovider -p no:logging --tb=short \
  > $OUT/run9/tests.log 2>&1
grep -v "^DEBUG" $OUT/run9/tests.log | grep -B2 -A30 "^____" | head -80
tail -3 $OUT/run9/tests.log
