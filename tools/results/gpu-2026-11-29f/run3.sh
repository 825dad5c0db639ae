#!/usr/bin/env bash
# run3: the head on CUDA after the reference loop moved to flexsn_trace.reference (14aca3c): the full GPU suite with a
# cold FlexSN cache (packages, then integration; suite.sh leaves out the import-linter tests, which need lint-imports).
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 2>&1 | tail -4
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 2>&1 | tail -4
rm -f "$OUT"/junit-*.xml
