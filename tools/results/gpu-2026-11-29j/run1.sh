#!/usr/bin/env bash
# run1: this stop's head on CUDA with a cold FlexSN cache (flex_sn_scan keeps T symbolic under torch.compile; the
# neighbour pass fuses graphs with symbolic sizes and inlines a flex_sn_scan body into the fused step): the
# packages' suite, then the integration suite, through tools/gpu_suite.sh.
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/gpu_suite.sh packages -n 8 2>&1 | tail -4
bash tools/gpu_suite.sh integration -n 8 2>&1 | tail -4
rm -f "$OUT"/junit-*.xml
