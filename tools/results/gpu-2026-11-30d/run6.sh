#!/bin/bash
# run6: why Inductor kept the BatchNorm apart from the template in run5 (its fusion log, the eval case of the
# channels-last test)
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run6
TORCH_LOGS="fusion" timeout 200 python3 -m pytest -p no:randomly "tests-integration/test_template_lowering.py::test_batchnorm_prologue_over_a_channels_last_convolution" \
  -q -p no:cacheprovider -p no:logging --tb=line -s > $OUT/run6/fusion.log 2>&1
grep -i "prologue\|tem_\|template" $OUT/run6/fusion.log | grep -v "^DEBUG" | sort | uniq -c | sort -rn | head -30
tail -2 $OUT/run6/fusion.log
