#!/usr/bin/env bash
# run7 (one H200): every package's tests on CUDA at the stop's last source change (1a98009: flex_sn_scan's T == 0
# path and the side-effect search, host-side), cold FlexSN cache.
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/gpu_suite.sh packages -n 8
