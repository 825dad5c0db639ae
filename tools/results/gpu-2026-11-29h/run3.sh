#!/usr/bin/env bash
# run3: the head (helpers held in defaults and global containers lifted) on CUDA with a cold FlexSN cache: the
# packages' suite, then SpikingJelly 2.0 parity (.whl carried), through tools/gpu_suite.sh.
cd "$(dirname "$0")/../../.."
export FLEXSN_CACHE_DIR=$(mktemp -d)
bash tools/gpu_suite.sh packages -n 8 2>&1 | tail -4
bash tools/gpu_suite.sh parity -n 8 2>&1 | tail -3
rm -f "$OUT"/junit-*.xml
