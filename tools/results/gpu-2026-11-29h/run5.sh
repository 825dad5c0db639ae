#!/usr/bin/env bash
# run5: the head's last code (98ae0cc: helpers in a closure's container lifted, the side-effect message) on CUDA,
# the files it touches only (the device time left was about four minutes): captures, side effects, explain.
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/gpu_suite.sh packages -n 8 -k "captures or side_effects or explain or getter or cached or host_reads" 2>&1 | tail -3
rm -f "$OUT"/junit-*.xml
