#!/usr/bin/env bash
# run3: fresh random cores on CUDA (run2's part ran out of its time limit before pytest printed): the property tests
# with new examples, FlexSN's RuntimeWarnings as errors (a training fallback fails the test), cold FlexSN cache.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) FLEXSN_CACHE_DIR=$(mktemp -d)
unset TRITON_INTERPRET
FLEXSN_HYPOTHESIS_RANDOM=1 FLEXSN_HYPOTHESIS_EXAMPLES=${N:-80} timeout 280 python3 -m pytest -q -p no:cacheprovider -n 8 \
  tests-integration/test_properties.py tests-integration/test_properties_static.py -W error:FlexSN:RuntimeWarning \
  --durations=5 2>&1 | tee "$OUT/random.log" | grep -E "^(FAILED|ERROR|E  )|passed|failed|Falsifying|s call" | tail -40
