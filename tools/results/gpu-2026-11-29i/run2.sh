#!/usr/bin/env bash
# run2: the head (the settling step runs the lifted core, stand-ins for captured tensors on the examples' device) on
# CUDA with a cold FlexSN cache: the packages' suite, then SpikingJelly 2.0 parity (carry .whl).
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/gpu_suite.sh packages -n 8 2>&1 | tail -4
bash tools/gpu_suite.sh parity -n 8 2>&1 | tail -4
rm -f "$OUT"/junit-*.xml
