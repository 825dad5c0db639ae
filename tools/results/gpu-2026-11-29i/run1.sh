#!/usr/bin/env bash
# run1: the head (a core changing a number it reads runs the eager loop, settled by one eager step at construction;
# every trace under flexsn_trace.private_generators) on CUDA with a cold FlexSN cache: the packages' suite, then the
# integration suite, through tools/gpu_suite.sh.
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/gpu_suite.sh packages -n 8 2>&1 | tail -4
bash tools/gpu_suite.sh integration -n 8 2>&1 | tail -4
rm -f "$OUT"/junit-*.xml
