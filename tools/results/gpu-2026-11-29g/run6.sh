#!/usr/bin/env bash
# run6: the head after run5 (a module's submodules followed by the number search, and kept out of the capture
# search): the packages' suite on CUDA with a cold FlexSN cache (suite.sh).
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 2>&1 | tail -4
rm -f "$OUT"/junit-*.xml
