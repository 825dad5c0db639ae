#!/usr/bin/env bash
# run4: the full suite on CUDA on this stop's code (per-run static sums, neighbour fusion on by default), cold FlexSN
# cache: packages, integration, SpikingJelly parity (../gpu-2026-11-28g/run2.sh); then the warnings of fallbacks
# and failed rewrites in its logs.
cd "$(dirname "$0")/../../.."
bash tools/results/gpu-2026-11-28g/run2.sh
echo "== rewrites that failed, fused kernels unavailable (warning texts, counted)"
grep -ho "absorbing the producers of a scan failed[^;]*\|fused kernels unavailable[^;]*\|this scan runs on the eager loop" "$OUT"/gpu_tests-*.log | sort | uniq -c | head -20
