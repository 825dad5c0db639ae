#!/usr/bin/env bash
# run4: this stop's head on CUDA with a cold FlexSN cache (side_effects follows loop items and helpers' results, and
# no longer tells a tensor's add/sort; the split test modules; flexsn explain's targets): the packages' suite, then
# the integration suite, through tools/gpu_suite.sh.
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/gpu_suite.sh packages -n 8 2>&1 | tail -4
bash tools/gpu_suite.sh integration -n 8 2>&1 | tail -4
rm -f "$OUT"/junit-*.xml
