#!/usr/bin/env bash
# run4 (one H200): this stop's head on CUDA with a cold FlexSN cache and the seeding root conftest.py (first GPU run
# with it): the packages' suite, then the integration suite, through tools/gpu_suite.sh.
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/gpu_suite.sh packages -n 8 2>&1 | tail -4
bash tools/gpu_suite.sh integration -n 8 2>&1 | tail -4
rm -f "$OUT"/junit-*.xml
