#!/usr/bin/env bash
# run6 (one H200): the T == 0 tests after run5's test fix, with this stop's touched test files, on CUDA
# (ran as this command line through the device tool; output: "97 passed").
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
timeout 300 python3 -m pytest packages/flexsn-hop/tests/test_final_state.py packages/flexsn-hop/tests/test_eager.py \
  packages/flexsn-hop/tests/test_lowerable.py packages/flexsn-nn/tests/test_side_effects.py -q -n 8 -p no:cacheprovider 2>&1 | tail -3
