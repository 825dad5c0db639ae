#!/usr/bin/env bash
# run1: the thirty-fifth stop's commits that had not run on CUDA (8e93482 detach rule, 5d43050 hoisting keeps the
# constants' module, a6e6774 carried constants, da830a9 masked factories). The full suite holds their tests
# (test_masked_cores, test_masked, test_hoist, test_carrier, the property tests): packages, then integration with a
# cold FlexSN cache, then parity with SpikingJelly 2.0 (the runner of ../gpu-2026-11-28g/run2.sh).
cd "$(dirname "$0")/../../.."
bash tools/results/gpu-2026-11-28g/run2.sh
